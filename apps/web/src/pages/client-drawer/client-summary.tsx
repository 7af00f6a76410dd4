import { Button, Group, Switch, Table } from '@mantine/core';
import { IconQrcode } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { useClient } from '../../api/queries.js';
import { ConfirmButton, formatBytes, formatDate, Ltr } from '../../components/common.js';
import { localDigits } from '../../format.js';
import { StatusBadge } from '../clients.js';

/** A client's state and numbers, with the buttons that act on it (the managing ones only for those who manage). */
export function ClientSummary({
  data,
  canManage,
  onToggle,
  onConfigs,
  onEdit,
  onReset,
  onRotate,
  onDelete,
}: {
  data: NonNullable<ReturnType<typeof useClient>['data']>;
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
            value={
              <Ltr>{`${formatBytes(data.usedBytes)} / ${data.quotaBytes ? formatBytes(data.quotaBytes) : '∞'} (↑ ${formatBytes(data.upBytes)} ↓ ${formatBytes(data.downBytes)})`}</Ltr>
            }
          />
          <Info label={t('clients.expires')} value={data.expiresAt ? formatDate(data.expiresAt, i18n.language) : '—'} />
          <Info
            label={t('clients.devices')}
            value={<Ltr>{localDigits(`${data.deviceCount} / ${data.deviceLimit || '∞'}`)}</Ltr>}
          />
          <Info label={t('clients.groups')} value={data.groups.join(', ') || '—'} />
          <Info label={t('clients.telegramId')} value={data.telegramId?.toString() ?? '—'} />
          <Info label={t('clients.lastHandshake')} value={formatDate(data.lastHandshake, i18n.language)} />
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

function Info({ label, value }: { label: string; value: ReactNode }) {
  return (
    <Table.Tr>
      <Table.Td c="dimmed" w="40%">
        {label}
      </Table.Td>
      <Table.Td>{value}</Table.Td>
    </Table.Tr>
  );
}
