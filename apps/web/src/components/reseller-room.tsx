import { Card, Group, Progress, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useMyOverview } from '../api/queries.js';
import { formatBytes, Sizes } from './common.js';
import { localDigits } from '../format.js';

/**
 * A reseller's room left under the ceilings the owner set (GET /api/overview): clients, the
 * traffic pool, the longest expiry and the largest quota. Shown on their clients and overview pages.
 */
export function ResellerRoomCard() {
  const { t } = useTranslation();
  const overview = useMyOverview({ refetchInterval: 10_000 });
  const reseller = overview.data?.reseller;
  if (!reseller) return null;
  const { pool, ceilings } = reseller;
  const none = t('reseller.noCeiling');
  const poolPercent = pool.totalBytes ? Math.min(100, (pool.usedBytes / pool.totalBytes) * 100) : 0;
  return (
    <Card withBorder mb="md" data-testid="reseller-room">
      <Text fw={600} mb="xs">
        {t('reseller.room')}
      </Text>
      <Stack gap={6}>
        <Group justify="space-between" wrap="nowrap">
          <Text size="sm">{t('reseller.clientsLeft')}</Text>
          <Text size="sm" data-testid="room-clients">
            {ceilings.maxClients === null
              ? none
              : localDigits(t('reseller.ofMax', { left: ceilings.clientsLeft ?? 0, max: ceilings.maxClients }))}
          </Text>
        </Group>
        <Group justify="space-between" wrap="nowrap">
          <Text size="sm">{t('reseller.pool')}</Text>
          <Text size="sm" data-testid="room-pool">
            {pool.totalBytes === null ? (
              <Sizes>{`${formatBytes(pool.usedBytes)} / ${none}`}</Sizes>
            ) : (
              <Sizes>{`${formatBytes(pool.leftBytes)} ${t('reseller.left')} · ${formatBytes(pool.usedBytes)} / ${formatBytes(pool.totalBytes)}`}</Sizes>
            )}
          </Text>
        </Group>
        {pool.totalBytes !== null && (
          <Progress value={poolPercent} color={poolPercent >= 90 ? 'red' : 'teal'} aria-label={t('reseller.pool')} />
        )}
        <Group justify="space-between" wrap="nowrap">
          <Text size="sm">{t('reseller.maxExpiry')}</Text>
          <Text size="sm" data-testid="room-expiry">
            {ceilings.maxExpiryDays === null
              ? none
              : localDigits(t('reseller.days', { count: ceilings.maxExpiryDays }))}
          </Text>
        </Group>
        <Group justify="space-between" wrap="nowrap">
          <Text size="sm">{t('reseller.maxQuota')}</Text>
          <Text size="sm" data-testid="room-quota">
            {ceilings.maxQuotaBytes === null ? none : <Sizes>{formatBytes(ceilings.maxQuotaBytes)}</Sizes>}
          </Text>
        </Group>
      </Stack>
    </Card>
  );
}
