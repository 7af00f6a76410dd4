import { Text, UnstyledButton } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { Schemas } from '../api.js';
import { StatusBadge } from '../components/badges.js';
import { formatBytes, formatDate, Ltr } from '../components/common.js';
import { localDigits } from '../format.js';
import { ListTable } from '../components/list-table.js';

type Client = Schemas['ClientDto'];

/** One page of clients: a table, or on a phone a card each (name, status, usage first). */
export function ClientsList({
  clients,
  empty,
  onOpen,
}: {
  clients: readonly Client[] | undefined;
  empty: string;
  onOpen: (client: Client) => void;
}) {
  const { t, i18n } = useTranslation();
  return (
    <ListTable
      rows={clients}
      empty={empty}
      cards
      rowKey={(client) => client.id}
      minWidth={640}
      testId="clients-table"
      rowProps={(client) => ({ onClick: () => onOpen(client), style: { cursor: 'pointer' }, 'data-row': client.name })}
      columns={[
        {
          header: t('common.name'),
          naming: true,
          cell: (client) => (
            <>
              <UnstyledButton onClick={() => onOpen(client)} fw={500} style={{ overflowWrap: 'anywhere' }}>
                {client.name}
              </UnstyledButton>
              {client.groups.length > 0 && (
                <Text size="xs" c="dimmed" fw={400}>
                  {client.groups.join(', ')}
                </Text>
              )}
            </>
          ),
        },
        { header: t('clients.statusLabel'), cell: (client) => <StatusBadge status={client.status} /> },
        {
          header: t('clients.usage'),
          cell: (client) => (
            <Ltr>{`${formatBytes(client.usedBytes)} / ${client.quotaBytes ? formatBytes(client.quotaBytes) : '∞'}`}</Ltr>
          ),
        },
        {
          header: t('clients.devices'),
          cell: (client) => <Ltr>{localDigits(`${client.deviceCount} / ${client.deviceLimit || '∞'}`)}</Ltr>,
        },
        {
          header: t('clients.expires'),
          cell: (client) => (client.expiresAt ? formatDate(client.expiresAt, i18n.language) : '—'),
        },
      ]}
    />
  );
}
