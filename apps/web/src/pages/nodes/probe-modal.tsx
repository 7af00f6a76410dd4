import { Alert, Loader, Stack, Table, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, must, type Schemas } from '../../api.js';
import { formatBytes, formatDuration, Ltr } from '../../components/common.js';
import { Modal } from '../../components/layers.js';
import { formatNumber, localDigits } from '../../format.js';
import type { Node } from './types.js';

type NodeProbe = Schemas['NodeProbeDto'];

/**
 * A node probe (POST /api/nodes/{id}/probe): the round trip over the agent's link, the agent's
 * and the panel's versions (a warning when they differ) and the host's facts. Asked once when
 * opened; a node whose agent cannot answer shows the panel's refusal.
 */
export function ProbeModal({ node, onClose }: { node: Node; onClose: () => void }) {
  const { t } = useTranslation();
  const probe = useQuery({
    queryKey: ['node-probe', node.id],
    queryFn: () => must(api.POST('/api/nodes/{id}/probe', { params: { path: { id: node.id } } })),
    retry: false,
    gcTime: 0,
  });
  return (
    <Modal opened onClose={onClose} title={t('nodes.probe.title', { name: node.name })} size="lg">
      {probe.isPending ? (
        <Stack align="center" py="md">
          <Loader size="sm" />
          <Text size="sm">{t('nodes.probe.waiting')}</Text>
        </Stack>
      ) : probe.isError ? (
        // The panel's own sentence: it names the node and why its agent cannot answer.
        <Alert color="red" variant="light" role="alert" data-testid="node-probe-error">
          {probe.error.message}
        </Alert>
      ) : (
        <ProbeFacts probe={probe.data} />
      )}
    </Modal>
  );
}

function ProbeFacts({ probe }: { probe: NodeProbe }) {
  const { t } = useTranslation();
  const ms = (value: number) => t('nodes.probe.ms', { value: formatNumber(value) });
  const rows: [string, ReactNode][] = [
    [t('nodes.probe.roundTrip'), ms(probe.roundTripMs)],
    [t('nodes.probe.agentVersion'), <Ltr key="a">{probe.agentVersion}</Ltr>],
    [t('nodes.probe.panelVersion'), <Ltr key="p">{probe.panelVersion}</Ltr>],
    [t('nodes.probe.kernel'), <Ltr key="k">{probe.host.kernel}</Ltr>],
    [t('nodes.probe.os'), <Ltr key="o">{`${probe.host.os} (${probe.host.arch})`}</Ltr>],
    [t('nodes.probe.wireguard'), t(`nodes.probe.implementation.${probe.wireguard.implementation}`)],
    [t('nodes.probe.wgTools'), <Ltr key="w">{probe.wireguard.tools ?? t('nodes.probe.missing')}</Ltr>],
    [t('nodes.probe.wireguardGo'), <Ltr key="g">{probe.wireguard.wireguardGo ?? t('nodes.probe.missing')}</Ltr>],
    [t('nodes.probe.nft'), <Ltr key="n">{probe.nft ?? t('nodes.probe.missing')}</Ltr>],
    [t('nodes.probe.cpus'), localDigits(probe.host.cpus)],
    [
      t('nodes.probe.memory'),
      t('nodes.probe.memoryValue', {
        available: formatBytes(probe.host.memoryAvailableBytes),
        total: formatBytes(probe.host.memoryTotalBytes),
      }),
    ],
    [t('nodes.probe.uptime'), formatDuration(probe.host.uptimeSeconds)],
    [t('nodes.probe.load'), probe.host.load.map((value) => formatNumber(value)).join(' · ')],
    [t('nodes.probe.clockOffset'), ms(probe.clockOffsetMs)],
  ];
  return (
    <Stack data-testid="node-probe-answer">
      {probe.versionWarning && (
        <Alert color="orange" data-testid="node-probe-skew">
          {t(`nodes.probe.skew.${probe.versionSkew}`, { agent: probe.agentVersion, panel: probe.panelVersion })}
        </Alert>
      )}
      <Table>
        <Table.Tbody>
          {rows.map(([label, value]) => (
            <Table.Tr key={label}>
              <Table.Th>{label}</Table.Th>
              <Table.Td>{value}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}
