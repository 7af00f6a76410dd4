import {
  Badge,
  Button,
  Group,
  Tooltip,
  NumberInput,
  PasswordInput,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Table,
  TagsInput,
  Text,
  TextInput,
} from '@mantine/core';
import { IconPlus, IconRadar } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, must, type Schemas } from '../api.js';
import { EditAndDelete, EmptyState, formatDate, Ltr, notifyFailure, PageHeader } from '../components/common.js';
import { useFieldErrors } from '../components/form-errors.js';
import { FormModal } from '../components/form-modal.js';
import { ListTable } from '../components/list-table.js';
import { NodeSelect } from '../components/node-select.js';
import { useCanManage } from '../session.js';
import { queryKeys, useOutbounds } from '../api/queries.js';
import { Modal } from '../components/layers.js';

type Outbound = Schemas['OutboundDto'];
type Probe = Schemas['ProbeResultDto'];
const KINDS = ['socks', 'http', 'shadowsocks', 'wireguard'] as const;
const METHODS = ['aes-128-gcm', 'aes-256-gcm', 'chacha20-ietf-poly1305'] as const;
const STAGES = ['dns', 'connect', 'handshake', 'firstByte'] as const;

/**
 * Whether the node runs the hop (its local redirector, as the agent last reported) and, while it
 * does, whether its last check (periodic or asked for) passed: `down` when the server behind it
 * did not answer.
 */
export function OutboundState({ outbound }: { outbound: Outbound }) {
  const { t } = useTranslation();
  const color = { up: 'green', down: 'red', failed: 'red', disabled: 'gray', unknown: 'yellow' }[outbound.state];
  return (
    <Tooltip label={t(`outbounds.stateHelp.${outbound.state}`)} multiline w={260} withArrow>
      <Badge color={color} variant="light" miw="max-content" data-testid="outbound-state">
        {t(`outbounds.state.${outbound.state}`)}
      </Badge>
    </Tooltip>
  );
}

/** The last check's verdict (reachable or not), so a running hop whose server refused is not read as healthy. */
function CheckResult({ outbound }: { outbound: Outbound }) {
  const { t } = useTranslation();
  const failed = outbound.lastError !== null;
  return (
    <Badge color={failed ? 'red' : 'green'} variant="outline" size="sm" miw="max-content" data-testid="check-verdict">
      {failed ? t('outbounds.checkFailed') : t('outbounds.checkPassed')}
    </Badge>
  );
}

/** A node's outbounds (hops): list, create, change, delete, and a check that shows the probe's stages. */
export default function OutboundsPage() {
  const { t, i18n } = useTranslation();
  const canManage = useCanManage();
  const queryClient = useQueryClient();
  const [nodeId, setNodeId] = useState<string | null>(null);
  const [editing, setEditing] = useState<Outbound | 'new' | null>(null);
  const [probe, setProbe] = useState<{ outbound: Outbound; result: Probe } | null>(null);
  const outbounds = useOutbounds(nodeId);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: queryKeys.outbounds() });
  const check = useMutation({
    mutationFn: async (outbound: Outbound) => ({
      outbound,
      result: await must(api.POST('/api/outbounds/{id}/check', { params: { path: { id: outbound.id } } })),
    }),
    onSuccess: (answer) => {
      setProbe(answer);
      refresh();
    },
    onError: notifyFailure,
  });
  const remove = useMutation({
    mutationFn: (id: string) => must(api.DELETE('/api/outbounds/{id}', { params: { path: { id } } })),
    onSuccess: refresh,
    onError: notifyFailure,
  });
  return (
    <>
      <PageHeader title={t('nav.outbounds')}>
        <NodeSelect value={nodeId} onChange={setNodeId} />
        {canManage && (
          <Button
            leftSection={<IconPlus size={16} />}
            onClick={() => setEditing('new')}
            disabled={!nodeId}
            data-testid="new-outbound"
          >
            {t('outbounds.new')}
          </Button>
        )}
      </PageHeader>
      {outbounds.data?.every((outbound) => outbound.builtin) && outbounds.data.length <= 2 && !canManage ? (
        <EmptyState>{t('outbounds.empty')}</EmptyState>
      ) : (
        <ListTable
          rows={outbounds.data}
          rowKey={(outbound) => outbound.id}
          minWidth={720}
          testId="outbounds-table"
          rowProps={(outbound) => ({ 'data-testid': 'outbound-row', 'data-tag': outbound.tag })}
          columns={[
            { header: t('outbounds.tag'), naming: true, cell: (outbound) => outbound.tag },
            { header: t('outbounds.kind'), cell: (outbound) => outbound.kind },
            {
              header: t('hosts.address'),
              cell: (outbound) => (outbound.address ? <Ltr>{outbound.address}</Ltr> : '—'),
            },
            {
              header: t('outbounds.onNode'),
              cell: (outbound) => (
                <>
                  <OutboundState outbound={outbound} />
                  {outbound.stateError && (
                    <Text size="xs" c="red">
                      {outbound.stateError}
                    </Text>
                  )}
                </>
              ),
            },
            {
              header: t('outbounds.lastCheck'),
              cell: (outbound) =>
                outbound.lastCheckAt ? (
                  <Text size="xs" component="div">
                    <CheckResult outbound={outbound} /> {formatDate(outbound.lastCheckAt, i18n.language)}
                    {outbound.latencyMs !== null && (
                      <>
                        {' '}
                        · <Ltr>{outbound.latencyMs} ms</Ltr>
                      </>
                    )}
                    {outbound.egressIp && (
                      <>
                        {' '}
                        · <Ltr>{outbound.egressIp}</Ltr>
                      </>
                    )}
                    {outbound.lastError && (
                      <Text span c="red" size="xs">
                        {' '}
                        · {outbound.lastError}
                      </Text>
                    )}
                  </Text>
                ) : (
                  '—'
                ),
            },
          ]}
          actions={(outbound) => (
            <>
              {outbound.kind !== 'blocked' && canManage && (
                <Button
                  size="xs"
                  variant="light"
                  leftSection={<IconRadar size={14} />}
                  loading={check.isPending && check.variables?.id === outbound.id}
                  onClick={() => check.mutate(outbound)}
                  data-testid="check-outbound"
                >
                  {t('outbounds.check')}
                </Button>
              )}
              {!outbound.builtin && canManage && (
                <EditAndDelete
                  onEdit={() => setEditing(outbound)}
                  confirmMessage={t('outbounds.confirmDelete', { tag: outbound.tag })}
                  onDelete={() => remove.mutate(outbound.id)}
                />
              )}
              {outbound.builtin && (
                <Badge variant="outline" size="xs">
                  {t('outbounds.builtin')}
                </Badge>
              )}
            </>
          )}
        />
      )}
      {editing && nodeId && (
        <OutboundModal
          nodeId={nodeId}
          outbound={editing === 'new' ? undefined : editing}
          onClose={() => setEditing(null)}
          onSaved={refresh}
        />
      )}
      {probe && <ProbeModal {...probe} onClose={() => setProbe(null)} />}
    </>
  );
}

/** The probe's answer: reachable or not, the error's class, and how long each stage took. */
function ProbeModal({ outbound, result, onClose }: { outbound: Outbound; result: Probe; onClose: () => void }) {
  const { t } = useTranslation();
  const total = STAGES.reduce((sum, stage) => sum + (result.stages[stage] ?? 0), 0) || 1;
  return (
    <Modal opened onClose={onClose} title={t('outbounds.checkOf', { tag: outbound.tag })} centered>
      <Stack data-testid="probe-result">
        <Group>
          <Badge color={result.ok ? 'green' : 'red'} size="lg" data-testid="probe-ok">
            {result.ok ? t('outbounds.reachable') : t('outbounds.unreachable')}
          </Badge>
          {result.latencyMs !== null && (
            <Text>
              <Ltr>{Math.round(result.latencyMs)} ms</Ltr>
            </Text>
          )}
          {result.egressIp && (
            <Text size="sm" c="dimmed">
              {t('outbounds.egress')}: <Ltr>{result.egressIp}</Ltr>
            </Text>
          )}
        </Group>
        {!result.ok && (
          <Text c="red" size="sm">
            {result.errorClass && (
              <b>{t(`outbounds.errorClass.${result.errorClass}`, { defaultValue: result.errorClass })}: </b>
            )}
            {result.error}
          </Text>
        )}
        <Table>
          <Table.Tbody>
            {STAGES.map((stage) => (
              <Table.Tr key={stage} data-testid="probe-stage">
                <Table.Td w="35%">{t(`outbounds.stage.${stage}`)}</Table.Td>
                <Table.Td>
                  {result.stages[stage] === null ? (
                    <Text c="dimmed" size="sm">
                      —
                    </Text>
                  ) : (
                    <Group gap="xs" wrap="nowrap">
                      <div
                        style={{
                          height: 8,
                          borderRadius: 4,
                          background: 'var(--mantine-color-teal-5)',
                          width: `${Math.max(2, (100 * result.stages[stage]!) / total)}%`,
                        }}
                      />
                      <Text size="sm">
                        <Ltr>{Math.round(result.stages[stage]!)} ms</Ltr>
                      </Text>
                    </Group>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Stack>
    </Modal>
  );
}

const FIELDS = [
  'tag',
  'kind',
  'address',
  'username',
  'password',
  'method',
  'privateKey',
  'peerPublicKey',
  'presharedKey',
  'allowedIps',
  'tunnelAddress',
  'mtu',
  'keepalive',
  'note',
  'enabled',
];

function OutboundModal({
  nodeId,
  outbound,
  onClose,
  onSaved,
}: {
  nodeId: string;
  outbound?: Outbound;
  onClose: () => void;
  onSaved: () => void;
}) {
  const { t } = useTranslation();
  const [values, setValues] = useState({
    tag: outbound?.tag ?? '',
    kind: (outbound?.kind ?? 'socks') as (typeof KINDS)[number],
    address: outbound?.address ?? '',
    username: outbound?.username ?? '',
    password: '',
    method: (outbound?.method || 'chacha20-ietf-poly1305') as (typeof METHODS)[number],
    peerPublicKey: outbound?.wireguard?.peerPublicKey ?? '',
    presharedKey: '',
    allowedIps: outbound?.wireguard?.allowedIps ?? ['0.0.0.0/0'],
    tunnelAddress: outbound?.wireguard?.tunnelAddress ?? '',
    mtu: outbound?.wireguard?.mtu ?? 1420,
    keepalive: outbound?.wireguard?.keepalive ?? 25,
    note: outbound?.note ?? '',
    enabled: outbound?.enabled ?? true,
  });
  const set = (key: keyof typeof values, value: unknown) => setValues((before) => ({ ...before, [key]: value }));
  const save = useMutation({
    mutationFn: () => {
      const common = {
        tag: values.tag.trim(),
        address: values.address.trim(),
        note: values.note,
        enabled: values.enabled,
      };
      const byKind =
        values.kind === 'wireguard'
          ? {
              peerPublicKey: values.peerPublicKey.trim(),
              allowedIps: values.allowedIps,
              tunnelAddress: values.tunnelAddress.trim(),
              mtu: Number(values.mtu),
              keepalive: Number(values.keepalive),
              ...(values.presharedKey ? { presharedKey: values.presharedKey.trim() } : {}),
            }
          : values.kind === 'shadowsocks'
            ? { method: values.method, ...(values.password || !outbound ? { password: values.password } : {}) }
            : { username: values.username.trim() || null, ...(values.password ? { password: values.password } : {}) };
      return outbound
        ? must(
            api.PATCH('/api/outbounds/{id}', { params: { path: { id: outbound.id } }, body: { ...common, ...byKind } }),
          )
        : must(api.POST('/api/outbounds', { body: { nodeId, kind: values.kind, ...common, ...byKind } }));
    },
    onSuccess: () => {
      onSaved();
      onClose();
    },
  });
  const errors = useFieldErrors(save.error, values);
  return (
    <FormModal
      title={outbound ? outbound.tag : t('outbounds.new')}
      onClose={onClose}
      save={save}
      fields={FIELDS}
      editing={Boolean(outbound)}
      size="lg"
      submitTestId="outbound-submit"
    >
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <TextInput
          label={t('outbounds.tag')}
          description={t('outbounds.tagHelp')}
          value={values.tag}
          onChange={(e) => set('tag', e.currentTarget.value)}
          error={errors.of('tag')}
        />
        <Select
          label={t('outbounds.kind')}
          data={KINDS.map((kind) => ({ value: kind, label: t(`outbounds.kinds.${kind}`) }))}
          value={values.kind}
          onChange={(kind) => kind && set('kind', kind)}
          disabled={Boolean(outbound)}
          error={errors.of('kind')}
        />
      </SimpleGrid>
      <TextInput
        label={t('outbounds.address')}
        placeholder="203.0.113.7:1080"
        value={values.address}
        onChange={(e) => set('address', e.currentTarget.value)}
        error={errors.of('address')}
      />
      {(values.kind === 'socks' || values.kind === 'http') && (
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <TextInput
            label={t('outbounds.username')}
            value={values.username}
            onChange={(e) => set('username', e.currentTarget.value)}
            error={errors.of('username')}
          />
          <PasswordInput
            label={t('outbounds.password')}
            placeholder={outbound?.hasPassword ? t('outbounds.keepPassword') : ''}
            value={values.password}
            onChange={(e) => set('password', e.currentTarget.value)}
            error={errors.of('password')}
          />
        </SimpleGrid>
      )}
      {values.kind === 'shadowsocks' && (
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <Select
            label={t('outbounds.method')}
            data={[...METHODS]}
            value={values.method}
            onChange={(method) => method && set('method', method)}
            error={errors.of('method')}
          />
          <PasswordInput
            label={t('outbounds.password')}
            placeholder={outbound?.hasPassword ? t('outbounds.keepPassword') : ''}
            value={values.password}
            onChange={(e) => set('password', e.currentTarget.value)}
            error={errors.of('password')}
          />
        </SimpleGrid>
      )}
      {values.kind === 'wireguard' && (
        <>
          <TextInput
            label={t('outbounds.peerPublicKey')}
            value={values.peerPublicKey}
            onChange={(e) => set('peerPublicKey', e.currentTarget.value)}
            error={errors.of('peerPublicKey')}
          />
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <TextInput
              label={t('outbounds.tunnelAddress')}
              placeholder="10.66.0.2/32"
              value={values.tunnelAddress}
              onChange={(e) => set('tunnelAddress', e.currentTarget.value)}
              error={errors.of('tunnelAddress')}
            />
            <PasswordInput
              label={t('outbounds.presharedKey')}
              value={values.presharedKey}
              onChange={(e) => set('presharedKey', e.currentTarget.value)}
              error={errors.of('presharedKey')}
            />
          </SimpleGrid>
          <TagsInput
            label={t('outbounds.allowedIps')}
            value={values.allowedIps}
            onChange={(value) => set('allowedIps', value)}
            error={errors.of('allowedIps')}
          />
          <SimpleGrid cols={2}>
            <NumberInput
              label="MTU"
              value={values.mtu}
              onChange={(value) => set('mtu', value)}
              error={errors.of('mtu')}
            />
            <NumberInput
              label={t('outbounds.keepalive')}
              value={values.keepalive}
              onChange={(value) => set('keepalive', value)}
              error={errors.of('keepalive')}
            />
          </SimpleGrid>
        </>
      )}
      <TextInput
        label={t('nodes.note')}
        value={values.note}
        onChange={(e) => set('note', e.currentTarget.value)}
        error={errors.of('note')}
      />
      <Switch
        label={t('interfaces.enabled')}
        checked={values.enabled}
        onChange={(e) => set('enabled', e.currentTarget.checked)}
      />
    </FormModal>
  );
}
