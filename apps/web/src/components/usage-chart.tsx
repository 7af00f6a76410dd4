import { Box, Group, Text } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useMemo, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { api, must, type Schemas } from '../api.js';
import { queryKeys } from '../api/queries.js';
import { formatBytes, Sizes } from './common.js';
import { PageLoader } from './page-loader.js';
import { RangePicker } from './range-picker.js';

// uPlot comes with the pages that draw a chart only.
const Chart = lazy(() => import('./chart.js'));

type UsageRange = Schemas['UsageSeriesDto']['range'];
const RANGES: UsageRange[] = ['1h', '24h', '48h', '7d', '30d', '90d', '1y', '2y'];
// Read when drawn, so the digits follow the page's language.
const bytes = (value: number) => formatBytes(value);

/**
 * Traffic per point over a range with its picker: one client's (GET /api/clients/{id}/usage) or,
 * without `clientId`, every client's (GET /api/overview/usage). Bytes per point, download and upload.
 */
export function UsageChart({ clientId, initialRange = '24h' }: { clientId?: string; initialRange?: UsageRange }) {
  const { t } = useTranslation();
  const [range, setRange] = useState<UsageRange>(initialRange);
  const usage = useQuery({
    queryKey: queryKeys.usage(range, clientId ?? null),
    queryFn: () =>
      clientId
        ? must(api.GET('/api/clients/{id}/usage', { params: { path: { id: clientId }, query: { range } } }))
        : must(api.GET('/api/overview/usage', { params: { query: { range } } })),
    refetchInterval: 30_000,
    placeholderData: keepPreviousData,
  });
  const data = usage.data;
  const lines = useMemo(
    () =>
      data
        ? [
            { label: `↓ ${t('usage.down')}`, color: '#228be6', points: data.series.down },
            { label: `↑ ${t('usage.up')}`, color: '#fa5252', points: data.series.up },
          ]
        : [],
    [data, t],
  );
  return (
    <Box data-testid="usage-chart">
      <Group justify="space-between" wrap="wrap" mb="xs">
        {/* Within the screen on a phone: the ranges wrap onto a second line. */}
        <RangePicker
          ranges={RANGES.map((value) => ({ value, label: t(`usage.ranges.${value}`) }))}
          label={t('usage.range')}
          value={range}
          onChange={setRange}
          testId="usage-range"
        />
        {data && (
          <Text size="sm" c="dimmed" data-testid="usage-total">
            <Trans
              i18nKey="usage.inRange"
              values={{ down: formatBytes(data.downBytes), up: formatBytes(data.upBytes) }}
              components={{ v: <Sizes /> }}
            />
          </Text>
        )}
      </Group>
      {!data ? (
        <PageLoader />
      ) : (
        <Suspense fallback={<PageLoader />}>
          <Chart lines={lines} format={bytes} height={180} />
        </Suspense>
      )}
    </Box>
  );
}
