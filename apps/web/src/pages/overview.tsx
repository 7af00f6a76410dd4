import { Card, Group, Progress, SimpleGrid, Stack, Table, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { formatBytes, formatDate, formatRate, formatDuration, Ltr, Sizes, PageHeader } from '../components/common.js';
import { formatNumber, formatPercent, localDigits } from '../format.js';
import { ListTable } from '../components/list-table.js';
import { PageLoader } from '../components/page-loader.js';
import { useMyOverview, useOverview } from '../api/queries.js';
import { ResellerRoomCard } from '../components/reseller-room.js';
import { useIsReseller } from '../session.js';
import { AgentBadge, SyncBadge } from '../components/badges.js';
import { isOfflineAgent, isStale, StaleNote } from '../components/node-health.js';
import { UsageChart } from '../components/usage-chart.js';
import { SecurityWarningsCard } from '../components/security-warnings.js';

/** A reseller's overview (GET /api/overview); everyone else's the panel's own. */
export default function OverviewPage() {
  return useIsReseller() ? <ResellerOverview /> : <PanelOverview />;
}

/** A reseller's own clients and traffic, and the room left under their ceilings. */
function ResellerOverview() {
  const { t } = useTranslation();
  const overview = useMyOverview({ refetchInterval: 10_000 });
  const data = overview.data;
  if (!data) return <PageLoader />;
  return (
    <>
      <PageHeader title={t('nav.overview')} />
      <SimpleGrid cols={{ base: 1, xs: 2 }} mb="md">
        <Stat
          label={t('overview.clients')}
          value={<span data-testid="my-clients">{localDigits(data.clients.total)}</span>}
          detail={t('overview.clientStates', data.clients)}
        />
        <Stat
          label={t('overview.traffic')}
          value={<Sizes>{formatBytes(data.usage.usedBytes)}</Sizes>}
          detail={<Sizes>{`↑ ${formatBytes(data.usage.upBytes)} · ↓ ${formatBytes(data.usage.downBytes)}`}</Sizes>}
        />
      </SimpleGrid>
      <ResellerRoomCard />
    </>
  );
}

/** GET /api/overview/full, asked again every few seconds: live telemetry, panel state and inventory. */
function PanelOverview() {
  const { t, i18n } = useTranslation();
  const overview = useOverview();
  const data = overview.data;
  if (!data) return <PageLoader />;
  const { telemetry, panel, inventory } = data;
  const host = telemetry.controller;
  return (
    <>
      <PageHeader title={t('nav.overview')}>
        <Text size="xs" c="dimmed" data-testid="overview-updated">
          {t('overview.updated', { at: formatDate(data.generatedAt, i18n.language) })}
        </Text>
      </PageHeader>
      <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }} mb="md">
        <Stat
          label={t('overview.clients')}
          value={localDigits(inventory.clients.total)}
          detail={t('overview.clientStates', inventory.clients)}
        />
        <Stat
          label={t('overview.devicesOnline')}
          value={<Ltr>{localDigits(`${inventory.devices.online} / ${inventory.devices.total}`)}</Ltr>}
        />
        <Stat
          label={t('overview.traffic')}
          value={<Sizes>{formatBytes(inventory.usage.usedBytes)}</Sizes>}
          detail={
            <Sizes>{`↑ ${formatBytes(inventory.usage.upBytes)} · ↓ ${formatBytes(inventory.usage.downBytes)}`}</Sizes>
          }
        />
        <Stat
          label={t('overview.nodesInSync')}
          value={<Ltr>{localDigits(`${panel.nodes.inSync} / ${panel.nodes.total - panel.nodes.unmanaged}`)}</Ltr>}
          detail={t(panel.nodes.unmanaged ? 'overview.nodeStatesUnmanaged' : 'overview.nodeStates', panel.nodes)}
        />
      </SimpleGrid>
      <SecurityWarningsCard />
      <Card withBorder mb="md">
        <Text fw={600} mb="sm">
          {t('usage.title')}
        </Text>
        <UsageChart />
      </Card>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Card withBorder>
          <Text fw={600} mb="sm">
            {t('overview.host')}
          </Text>
          <Stack gap="xs">
            <Meter
              label={t('system.cpu')}
              percent={host.cpu.percent}
              detail={
                <>
                  {t('system.cores', { count: host.cpu.cores })} · {t('system.load')}{' '}
                  <Ltr>{formatNumber(host.cpu.load1, { minimumFractionDigits: 2, maximumFractionDigits: 2 })}</Ltr>
                </>
              }
            />
            <Meter
              label={t('system.memory')}
              percent={host.memory.percent}
              detail={<Sizes>{`${formatBytes(host.memory.used)} / ${formatBytes(host.memory.total)}`}</Sizes>}
            />
            <Meter
              label={t('system.disk')}
              percent={host.disk.percent}
              detail={<Sizes>{`${formatBytes(host.disk.used)} / ${formatBytes(host.disk.total)}`}</Sizes>}
            />
            <Text size="sm">
              {t('system.network')}: <Sizes>↓ {formatRate(host.network.rxRate)}</Sizes> ·{' '}
              <Sizes>↑ {formatRate(host.network.txRate)}</Sizes>
            </Text>
          </Stack>
        </Card>
        <Card withBorder>
          <Text fw={600} mb="sm">
            {t('overview.panel')}
          </Text>
          <Table>
            <Table.Tbody>
              <Row label={t('overview.version')} value={<Ltr>{panel.version}</Ltr>} />
              <Row label={t('overview.uptime')} value={formatDuration(panel.uptimeSeconds)} />
              <Row
                label={t('overview.backends')}
                value={`${t(`overview.database.${panel.database}`)} · ${t(`overview.queue.${panel.queue}`)}`}
              />
              <Row label={t('overview.interfaces')} value={localDigits(inventory.interfaces)} />
              {inventory.outbounds !== null && (
                <Row label={t('nav.outbounds')} value={localDigits(inventory.outbounds)} />
              )}
              <Row
                label={t('overview.lastBackup')}
                value={panel.lastBackup ? formatDate(panel.lastBackup.createdAt, i18n.language) : t('overview.never')}
              />
              <Row
                label={t('overview.lastEnforcement')}
                value={
                  panel.lastEnforcement ? formatDate(panel.lastEnforcement.at, i18n.language) : t('overview.never')
                }
              />
            </Table.Tbody>
          </Table>
        </Card>
      </SimpleGrid>
      <Card withBorder mt="md">
        <Text fw={600} mb="sm">
          {t('nav.nodes')}
        </Text>
        <ListTable
          rows={telemetry.nodes}
          rowKey={(node) => node.id}
          testId="overview-nodes"
          rowProps={(node) => ({ 'data-row': node.name })}
          minWidth={480}
          columns={[
            { header: t('common.name'), cell: (node) => node.name },
            { header: t('nodes.agent'), cell: (node) => <AgentBadge state={node.agent.state} /> },
            {
              // The card's rule (panel-state.ts): a node whose agent is not linked is offline, whatever it last applied.
              header: t('nodes.sync'),
              cell: (node) => (
                <SyncBadge
                  inSync={node.sync.inSync}
                  unmanaged={node.agent.state === 'unmanaged'}
                  offline={isOfflineAgent(node.agent.state)}
                />
              ),
            },
            {
              header: t('system.cpu'),
              cell: (node) =>
                node.system ? (
                  <>
                    <Ltr>{formatPercent(node.system.cpu.percent)}</Ltr>
                    {isStale(node.system.sampledAt, node.agent.state) && (
                      <>
                        {' '}
                        <StaleNote sampledAt={node.system.sampledAt} />
                      </>
                    )}
                  </>
                ) : (
                  '—'
                ),
            },
          ]}
        />
      </Card>
    </>
  );
}

function Stat({ label, value, detail }: { label: string; value: ReactNode; detail?: ReactNode }) {
  return (
    <Card withBorder>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text size="xl" fw={700}>
        {value}
      </Text>
      {detail && (
        <Text size="xs" c="dimmed">
          {detail}
        </Text>
      )}
    </Card>
  );
}

function Meter({ label, percent, detail }: { label: string; percent: number; detail: ReactNode }) {
  return (
    <div>
      <Group justify="space-between">
        <Text size="sm">{label}</Text>
        <Text size="xs" c="dimmed">
          {formatPercent(percent)} · {detail}
        </Text>
      </Group>
      <Progress value={percent} color={percent > 85 ? 'red' : percent > 60 ? 'yellow' : 'teal'} aria-label={label} />
    </div>
  );
}

function Row({ label, value }: { label: string; value: ReactNode }) {
  return (
    <Table.Tr>
      <Table.Td c="dimmed">{label}</Table.Td>
      <Table.Td>{value}</Table.Td>
    </Table.Tr>
  );
}
