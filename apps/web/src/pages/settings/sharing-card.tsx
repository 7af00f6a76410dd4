import { Badge, Card, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, must } from '../../api.js';
import { formatDate, Ltr } from '../../components/common.js';
import { localDigits } from '../../format.js';

/**
 * Devices whose endpoints moved like a shared profile's (GET /api/sharing, the owner's), with the
 * evidence: each address, when it was first and last seen, how often the endpoint moved there.
 */
export function SharingCard() {
  const { t, i18n } = useTranslation();
  const sharing = useQuery({
    queryKey: ['sharing'],
    queryFn: () => must(api.GET('/api/sharing')),
    refetchInterval: 30_000,
  });
  const data = sharing.data;
  return (
    <Card withBorder maw={960} mt="md" data-testid="sharing-card">
      <Stack gap="xs">
        <Title order={3}>{t('sharing.title')}</Title>
        {data && (
          <Text size="sm" c="dimmed">
            {t('sharing.window', {
              minutes: localDigits(data.windowMinutes),
              addresses: localDigits(data.maxAddresses),
              action: t(`sharing.actions.${data.action}`),
            })}
          </Text>
        )}
        {data && data.devices.length === 0 && <Text size="sm">{t('sharing.none')}</Text>}
        {data?.devices.map((device) => (
          <Card key={device.deviceId} withBorder padding="xs" data-testid="shared-device">
            <Text size="sm" fw={500}>
              {device.clientName} · {device.deviceName}{' '}
              <Badge size="xs" color={device.reason === 'several-at-once' ? 'red' : 'orange'}>
                {t(`sharing.reasons.${device.reason}`)}
              </Badge>{' '}
              <Badge size="xs" variant="outline">
                {t(`clients.status.${device.clientStatus}`, { defaultValue: device.clientStatus })}
              </Badge>
            </Text>
            <Table fz="xs" mt={4}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('sharing.address')}</Table.Th>
                  <Table.Th>{t('sharing.firstSeen')}</Table.Th>
                  <Table.Th>{t('sharing.lastSeen')}</Table.Th>
                  <Table.Th>{t('sharing.moves')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {device.addresses.map((address) => (
                  <Table.Tr key={address.address}>
                    <Table.Td>
                      <Ltr>{address.address}</Ltr>
                    </Table.Td>
                    <Table.Td>{formatDate(address.firstSeen, i18n.language)}</Table.Td>
                    <Table.Td>{formatDate(address.lastSeen, i18n.language)}</Table.Td>
                    <Table.Td>{localDigits(address.moves)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Card>
        ))}
      </Stack>
    </Card>
  );
}
