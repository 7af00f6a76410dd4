import { Badge, Card, Group, Progress, SimpleGrid, Stack, Table, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, must, type Schemas } from '../api.js';
import { formatBytes, formatDate, formatDuration, PageHeader } from '../components/common.js';
import { ListTable } from '../components/list-table.js';
import { PageLoader } from '../components/page-loader.js';

/** GET /api/overview/full, asked again every few seconds: live telemetry, panel state and inventory. */
export default function OverviewPage() {
  const { t, i18n } = useTranslation();
  const overview = useQuery({ queryKey: ['overview'], queryFn: () => must(api.GET('/api/overview/full')), refetchInterval: 5000 });
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
        <Stat label={t('overview.clients')} value={inventory.clients.total} detail={t('overview.clientStates', inventory.clients)} />
        <Stat label={t('overview.devicesOnline')} value={`${inventory.devices.online} / ${inventory.devices.total}`} />
        <Stat label={t('overview.traffic')} value={formatBytes(inventory.usage.usedBytes)} detail={`↑ ${formatBytes(inventory.usage.upBytes)} · ↓ ${formatBytes(inventory.usage.downBytes)}`} />
        <Stat label={t('overview.nodesInSync')} value={`${panel.nodes.inSync} / ${panel.nodes.total}`} detail={t('overview.nodeStates', panel.nodes)} />
      </SimpleGrid>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Card withBorder>
          <Text fw={600} mb="sm">{t('overview.host')}</Text>
          <Stack gap="xs">
            <Meter label={t('system.cpu')} percent={host.cpu.percent} detail={`${host.cpu.cores} · ${t('system.load')} ${host.cpu.load1.toFixed(2)}`} />
            <Meter label={t('system.memory')} percent={host.memory.percent} detail={`${formatBytes(host.memory.used)} / ${formatBytes(host.memory.total)}`} />
            <Meter label={t('system.disk')} percent={host.disk.percent} detail={`${formatBytes(host.disk.used)} / ${formatBytes(host.disk.total)}`} />
            <Text size="sm">
              {t('system.network')}: ↓ {formatBytes(host.network.rxRate)}/s · ↑ {formatBytes(host.network.txRate)}/s
            </Text>
          </Stack>
        </Card>
        <Card withBorder>
          <Text fw={600} mb="sm">{t('overview.panel')}</Text>
          <Table>
            <Table.Tbody>
              <Row label={t('overview.version')} value={panel.version} />
              <Row label={t('overview.uptime')} value={formatDuration(panel.uptimeSeconds)} />
              <Row label={t('overview.backends')} value={`${panel.database} · ${panel.queue}`} />
              <Row label={t('overview.interfaces')} value={inventory.interfaces} />
              {inventory.outbounds !== null && <Row label={t('nav.outbounds')} value={inventory.outbounds} />}
              <Row label={t('overview.lastBackup')} value={panel.lastBackup ? formatDate(panel.lastBackup.createdAt, i18n.language) : t('overview.never')} />
              <Row label={t('overview.lastEnforcement')} value={panel.lastEnforcement ? formatDate(panel.lastEnforcement.at, i18n.language) : t('overview.never')} />
            </Table.Tbody>
          </Table>
        </Card>
      </SimpleGrid>
      <Card withBorder mt="md">
        <Text fw={600} mb="sm">{t('nav.nodes')}</Text>
        <ListTable
          rows={telemetry.nodes}
          rowKey={(node) => node.id}
          minWidth={480}
          columns={[
            { header: t('common.name'), cell: (node) => node.name },
            { header: t('nodes.agent'), cell: (node) => <AgentBadge state={node.agent.state} /> },
            { header: t('nodes.sync'), cell: (node) => <SyncBadge inSync={node.sync.inSync} /> },
            { header: t('system.cpu'), cell: (node) => (node.system ? `${node.system.cpu.percent.toFixed(0)}%` : '—') },
          ]}
        />
      </Card>
    </>
  );
}

function Stat({ label, value, detail }: { label: string; value: string | number; detail?: string }) {
  return (
    <Card withBorder>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>{label}</Text>
      <Text size="xl" fw={700}>{value}</Text>
      {detail && <Text size="xs" c="dimmed">{detail}</Text>}
    </Card>
  );
}

function Meter({ label, percent, detail }: { label: string; percent: number; detail: string }) {
  return (
    <div>
      <Group justify="space-between">
        <Text size="sm">{label}</Text>
        <Text size="xs" c="dimmed">{percent.toFixed(0)}% · {detail}</Text>
      </Group>
      <Progress value={percent} color={percent > 85 ? 'red' : percent > 60 ? 'yellow' : 'teal'} />
    </div>
  );
}

function Row({ label, value }: { label: string; value: string | number }) {
  return (
    <Table.Tr>
      <Table.Td c="dimmed">{label}</Table.Td>
      <Table.Td>{value}</Table.Td>
    </Table.Tr>
  );
}

export function AgentBadge({ state }: { state: Schemas['NodeAgentDto']['state'] }) {
  const { t } = useTranslation();
  const color = state === 'connected' ? 'green' : state === 'disconnected' ? 'red' : 'gray';
  return <Badge color={color} variant="light">{t(`agentState.${state}`)}</Badge>;
}

export function SyncBadge({ inSync }: { inSync: boolean }) {
  const { t } = useTranslation();
  return <Badge color={inSync ? 'green' : 'yellow'} variant="light">{inSync ? t('nodes.inSync') : t('nodes.behind')}</Badge>;
}
