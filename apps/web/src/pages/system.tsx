import { Card, Group, Select, SimpleGrid, Text } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, must, type Schemas } from '../api.js';
import { formatBytes, formatRate, Ltr, Sizes, PageHeader } from '../components/common.js';
import { RangePicker } from '../components/range-picker.js';
import { formatNumber, formatPercent, localDigits } from '../format.js';
import { PageLoader } from '../components/page-loader.js';
import { queryKeys } from '../api/queries.js';
import { AgentBadge } from '../components/badges.js';
import { AgentGaps, formatAge, isStale, StaleNote } from '../components/node-health.js';

// uPlot comes with this page only.
const Chart = lazy(() => import('../components/chart.js'));
const RANGES = ['5m', '1h', '6h', '24h', '48h', '7d'] as const;
// Read when drawn, so the digits follow the page's language.
const percent = (value: number) => formatPercent(value);
const rate = (value: number) => formatRate(value);
const load = (value: number) => formatNumber(value, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const PERCENT: [number, number] = [0, 100];

/** Host history per range and node (GET /api/system/history), and the current state of each host (GET /api/system). */
export default function SystemPage() {
  const { t } = useTranslation();
  const [range, setRange] = useState<(typeof RANGES)[number]>('1h');
  const [nodeId, setNodeId] = useState<string | null>(null);
  const system = useQuery({
    queryKey: queryKeys.system,
    queryFn: () => must(api.GET('/api/system')),
    refetchInterval: 10_000,
  });
  const history = useQuery({
    queryKey: queryKeys.systemHistory(range, nodeId),
    queryFn: () =>
      must(api.GET('/api/system/history', { params: { query: { range, ...(nodeId ? { nodeId } : {}) } } })),
    refetchInterval: 15_000,
    placeholderData: keepPreviousData,
  });
  const series = history.data?.series;
  return (
    <>
      <PageHeader title={t('nav.system')}>
        <Select
          aria-label={t('system.host')}
          data={[
            { value: '', label: t('system.controller') },
            ...(system.data?.nodes ?? []).map((node) => ({ value: node.id, label: node.name })),
          ]}
          value={nodeId ?? ''}
          onChange={(value) => setNodeId(value || null)}
          w={180}
        />
        {/* Within the screen on a phone: the ranges wrap (words in Persian are wider). */}
        <RangePicker
          ranges={RANGES.map((value) => ({ value, label: t(`system.ranges.${value}`) }))}
          label={t('system.range')}
          value={range}
          onChange={setRange}
          testId="range"
        />
      </PageHeader>
      {!series ? (
        <PageLoader />
      ) : (
        <Suspense fallback={<PageLoader />}>
          <SimpleGrid cols={{ base: 1, lg: 2 }}>
            <ChartCard title={t('system.cpuMemory')}>
              <Chart
                lines={[
                  { label: t('system.cpu'), color: '#12b886', points: series.cpu },
                  { label: t('system.memory'), color: '#228be6', points: series.memory },
                  { label: t('system.disk'), color: '#fab005', points: series.disk },
                ]}
                format={percent}
                range={PERCENT}
              />
            </ChartCard>
            <ChartCard title={t('system.network')}>
              <Chart
                lines={[
                  { label: '↓', color: '#228be6', points: series.rxRate },
                  { label: '↑', color: '#fa5252', points: series.txRate },
                ]}
                format={rate}
              />
            </ChartCard>
            <ChartCard title={t('system.load')}>
              <Chart lines={[{ label: t('system.load1'), color: '#7950f2', points: series.load1 }]} format={load} />
            </ChartCard>
            <ChartCard title={t('system.swap')}>
              <Chart
                lines={[{ label: t('system.swap'), color: '#fd7e14', points: series.swap }]}
                format={percent}
                range={PERCENT}
              />
            </ChartCard>
          </SimpleGrid>
        </Suspense>
      )}
      {system.data &&
        (nodeId ? (
          <NodeSnapshot node={system.data.nodes.find((node) => node.id === nodeId)} />
        ) : (
          <Snapshot snapshot={system.data} />
        ))}
    </>
  );
}

function ChartCard({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <Card withBorder>
      <Text fw={600} mb="xs">
        {title}
      </Text>
      {children}
    </Card>
  );
}

/**
 * The chosen node's own state: its agent (linked or since when not), its newest figures marked
 * stale with their age when the agent is away or has gone quiet, and what its host cannot do.
 */
function NodeSnapshot({ node }: { node: Schemas['NodeSystemDto'] | undefined }) {
  const { t, i18n } = useTranslation();
  if (!node) return null;
  const sample = node.system;
  return (
    <Card withBorder mt="md" data-testid="node-snapshot">
      <Group gap="xs" mb="xs">
        <Text fw={600}>{t('health.nodeHost', { name: node.name })}</Text>
        <AgentBadge state={node.agent.state} />
        {node.agent.state !== 'connected' && (
          <Text size="xs" c="dimmed">
            {node.agent.lastSeenAt
              ? t('health.lastSeen', { age: formatAge(node.agent.lastSeenAt, i18n.language) })
              : t('health.never')}
          </Text>
        )}
      </Group>
      {sample ? (
        <Figures sample={sample}>
          {isStale(sample.sampledAt, node.agent.state) && <StaleNote sampledAt={sample.sampledAt} />}
        </Figures>
      ) : (
        <Text size="sm" c="dimmed">
          {t('health.noSample')}
        </Text>
      )}
      <AgentGaps gaps={node.agent.gaps} />
    </Card>
  );
}

function Snapshot({ snapshot }: { snapshot: Schemas['SystemSnapshotDto'] }) {
  const { t } = useTranslation();
  const host = snapshot.controller;
  return (
    <Card withBorder mt="md">
      <Text fw={600} mb="xs">
        {t('system.controller')}
      </Text>
      <Figures sample={host}>
        <Text size="sm">
          {t('system.rss')}: <Sizes>{formatBytes(host.processRss)}</Sizes>
        </Text>
      </Figures>
    </Card>
  );
}

/** A host's newest CPU, memory and disk figures on one line, and what the card adds after them. */
function Figures({ sample, children }: { sample: Schemas['SampleDto']; children?: React.ReactNode }) {
  const { t } = useTranslation();
  return (
    <Group gap="xl">
      <Text size="sm">
        {t('system.cpu')}: <Ltr>{percent(sample.cpu.percent)}</Ltr> ({localDigits(sample.cpu.cores)})
      </Text>
      <Text size="sm">
        {t('system.memory')}:{' '}
        <Sizes>
          {formatBytes(sample.memory.used)} / {formatBytes(sample.memory.total)}
        </Sizes>
      </Text>
      <Text size="sm">
        {t('system.disk')}:{' '}
        <Sizes>
          {formatBytes(sample.disk.used)} / {formatBytes(sample.disk.total)}
        </Sizes>
      </Text>
      {children}
    </Group>
  );
}
