import { Button, Code, Group, Stack, Switch, Table, Text } from '@mantine/core';
import { IconQrcode } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { interfaceLabel, type InterfaceChoice, type useClient } from '../../api/queries.js';
import { ConfirmButton, Copy, formatBytes, formatDate, Ltr, Sizes, Unbroken } from '../../components/common.js';
import { localDigits } from '../../format.js';
import { StatusBadge } from '../clients.js';
import { OnlineState } from '../clients/online-state.js';
import { CurrentRate } from '../../components/current-rate.js';

type Interface = InterfaceChoice;

/** A client's state and numbers, with the buttons that act on it (the managing ones only for those who manage). */
export function ClientSummary({
  data,
  interfaces,
  canManage,
  onToggle,
  onConfigs,
  onEdit,
  onReset,
  onRotate,
  onDelete,
}: {
  data: NonNullable<ReturnType<typeof useClient>['data']>;
  /** The panel's interfaces by id (with their node's name), undefined while they load. */
  interfaces: Map<string, Interface> | undefined;
  canManage: boolean;
  onToggle: (enabled: boolean) => void;
  onConfigs: () => void;
  onEdit: () => void;
  onReset: () => void;
  onRotate: () => void;
  onDelete: () => void;
}) {
  const { t, i18n } = useTranslation();
  return (
    <>
      <Group justify="space-between">
        <StatusBadge status={data.status} />
        {canManage && (
          <Switch
            label={t('clients.enabled')}
            checked={data.status !== 'disabled'}
            onChange={(e) => onToggle(e.currentTarget.checked)}
            data-testid="client-enabled"
          />
        )}
      </Group>
      <Table>
        <Table.Tbody>
          <Info
            label={t('clients.usage')}
            testId="client-usage"
            value={
              // Two isolates a narrow line may put apart, never breaking inside a size ("GiB)" alone),
              // in the page's direction: "used / quota" read first, then "(↑ … ↓ …)", in either language.
              <>
                <Unbroken>
                  <Sizes>{`${formatBytes(data.usedBytes)} / ${data.quotaBytes ? formatBytes(data.quotaBytes) : '∞'}`}</Sizes>
                </Unbroken>{' '}
                <Sizes>
                  <Unbroken>{`(↑ ${formatBytes(data.upBytes)}`}</Unbroken>{' '}
                  <Unbroken>{`↓ ${formatBytes(data.downBytes)})`}</Unbroken>
                </Sizes>
              </>
            }
          />
          <Info label={t('clients.expires')} value={data.expiresAt ? formatDate(data.expiresAt, i18n.language) : '—'} />
          <Info
            label={t('clients.devices')}
            value={<Ltr>{localDigits(`${data.deviceCount} / ${data.deviceLimit || '∞'}`)}</Ltr>}
          />
          <Info
            label={t('clients.speedLimit')}
            testId="client-speed-limit"
            value={
              data.rateBitsPerSec ? (
                <Ltr>{localDigits(t('clients.mbits', { value: +(data.rateBitsPerSec / 1_000_000).toFixed(3) }))}</Ltr>
              ) : (
                '∞'
              )
            }
          />
          <Info label={t('clients.groups')} value={data.groups.join(', ') || '—'} />
          <Info label={t('clients.telegramId')} value={data.telegramId?.toString() ?? '—'} />
          <Info
            label={t('clients.resetCycle')}
            value={
              data.resetCycle === 'none' || !data.lastResetAt
                ? t(`clients.cycle.${data.resetCycle}`)
                : t('clients.cycleLastReset', {
                    cycle: t(`clients.cycle.${data.resetCycle}`),
                    date: formatDate(data.lastResetAt, i18n.language),
                  })
            }
            testId="client-reset-cycle"
          />
          <Info
            label={t('clients.lastHandshake')}
            value={
              <Group gap="xs">
                <OnlineState onlineNow={data.onlineNow} lastHandshake={data.lastHandshake} />
                {data.lastHandshake && <Text size="sm">{formatDate(data.lastHandshake, i18n.language)}</Text>}
                <CurrentRate downRate={data.downRate} upRate={data.upRate} />
              </Group>
            }
          />
          <Info
            label={t('clients.interfaces')}
            value={
              data.interfaceIds.length === 0 ? (
                '—'
              ) : (
                <Stack gap={6}>
                  {data.interfaceIds.map((id) => (
                    <InterfaceKey key={id} id={id} entry={interfaces?.get(id)} />
                  ))}
                </Stack>
              )
            }
          />
          {data.note && <Info label={t('clients.note')} value={data.note} />}
        </Table.Tbody>
      </Table>
      <Group gap="xs">
        <Button size="xs" onClick={onConfigs} data-testid="open-configs" leftSection={<IconQrcode size={14} />}>
          {t('clients.configs')}
        </Button>
        {canManage && (
          <>
            <Button size="xs" variant="default" onClick={onEdit} data-testid="edit-client">
              {t('common.edit')}
            </Button>
            <ConfirmButton
              message={t('clients.confirmReset', { name: data.name })}
              onConfirm={onReset}
              color="orange"
              data-testid="reset-client"
            >
              {t('clients.reset')}
            </ConfirmButton>
            <ConfirmButton
              message={t('clients.confirmRotate', { name: data.name })}
              onConfirm={onRotate}
              color="orange"
            >
              {t('clients.rotate')}
            </ConfirmButton>
            <ConfirmButton
              message={t('clients.confirmDelete', { name: data.name })}
              onConfirm={onDelete}
              data-testid="delete-client"
            >
              {t('common.delete')}
            </ConfirmButton>
          </>
        )}
      </Group>
    </>
  );
}

/** One interface of the client: its name with its node, and its public key (what a peer config names) to copy. */
function InterfaceKey({ id, entry }: { id: string; entry: Interface | undefined }) {
  if (!entry) return <Code dir="ltr">{id}</Code>;
  return (
    <div data-testid="client-interface">
      <Text size="sm">{interfaceLabel(entry)}</Text>
      {/* The interface's (the server's) key, what a device's config names as its peer: not the client's.
          A reseller's overview names their interfaces without it. */}
      {entry.publicKey && <InterfacePublicKey label={interfaceLabel(entry)} publicKey={entry.publicKey} />}
    </div>
  );
}

function InterfacePublicKey({ label, publicKey }: { label: string; publicKey: string }) {
  const { t } = useTranslation();
  return (
    <>
      <Text size="xs" c="dimmed" data-testid="interface-key-label">
        {t('clients.interfacePublicKey')}
      </Text>
      <Group gap={4} wrap="nowrap">
        <Code dir="ltr" style={{ wordBreak: 'break-all' }}>
          {publicKey}
        </Code>
        <Copy value={publicKey} name={t('clients.copyInterfaceKey', { name: label })} />
      </Group>
    </>
  );
}

function Info({ label, value, testId }: { label: string; value: ReactNode; testId?: string }) {
  return (
    <Table.Tr data-testid={testId}>
      <Table.Td c="dimmed" w="40%">
        {label}
      </Table.Td>
      <Table.Td>{value}</Table.Td>
    </Table.Tr>
  );
}
