import { Accordion, Button, Center, Group, Image, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconDownload, IconQrcode } from '@tabler/icons-react';
import { useMutation, useQuery } from '@tanstack/react-query';
import QRCode from 'qrcode';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, messageOf, must, saveFile, type Schemas } from '../api.js';
import { Copy, EmptyState } from '../components/common.js';
import { PageLoader } from '../components/page-loader.js';
import { queryKeys } from '../api/queries.js';
import { Modal } from '../components/layers.js';

/** Every config of a client, per device and host (GET /api/clients/{id}/configs): copy or download each, scan each as a QR code, or take all as a zip. */
export default function ConfigsModal({ clientId, onClose }: { clientId: string; onClose: () => void }) {
  const { t } = useTranslation();
  const configs = useQuery({
    queryKey: queryKeys.configs(clientId),
    queryFn: async () =>
      (await must(
        api.GET('/api/clients/{id}/configs', { params: { path: { id: clientId } } }),
      )) as Schemas['ClientConfigsDto'],
    staleTime: 0,
  });
  const [qr, setQr] = useState<Schemas['ProfileDto'] | null>(null);
  const zip = useMutation({
    mutationFn: async () => {
      const answer = await api.GET('/api/clients/{id}/configs', {
        params: { path: { id: clientId }, query: { format: 'zip' } },
        parseAs: 'blob',
      });
      if (!answer.response.ok) throw new Error(answer.response.statusText);
      return answer.data as unknown as Blob;
    },
    onSuccess: (blob) => saveFile(blob, `${configs.data?.clientName ?? 'client'}.zip`),
    onError: (error) => notifications.show({ message: messageOf(error), color: 'red' }),
  });
  const data = configs.data;
  return (
    <Modal opened onClose={onClose} title={t('clients.configs')} size="lg">
      {!data ? (
        configs.error ? (
          <Text c="red">{messageOf(configs.error)}</Text>
        ) : (
          <PageLoader />
        )
      ) : data.devices.every((device) => device.profiles.length === 0) ? (
        <EmptyState>{t('clients.noConfigs')}</EmptyState>
      ) : (
        <Stack>
          <Group justify="flex-end">
            <Button
              size="xs"
              variant="light"
              leftSection={<IconDownload size={14} />}
              onClick={() => zip.mutate()}
              loading={zip.isPending}
            >
              {t('clients.downloadZip')}
            </Button>
          </Group>
          <Accordion multiple defaultValue={data.devices.map((device) => device.deviceId)}>
            {data.devices.map((device) => (
              <Accordion.Item key={device.deviceId} value={device.deviceId}>
                <Accordion.Control>{device.deviceName}</Accordion.Control>
                <Accordion.Panel>
                  <Stack gap="xs">
                    {device.profiles.map((profile) => (
                      <Group key={profile.filename} justify="space-between" data-testid="profile">
                        <div style={{ minWidth: 0 }}>
                          {/* The whole file name, wrapped on a phone: its end is what tells two apart. */}
                          <Text size="sm" fw={500} dir="ltr" style={{ wordBreak: 'break-all' }}>
                            {profile.filename}
                          </Text>
                          <Text size="xs" c="dimmed">
                            {profile.interfaceName} · {profile.hostName}
                          </Text>
                        </div>
                        <Group gap={4} wrap="nowrap">
                          <Copy value={profile.body} name={t('clients.copyConfig', { name: profile.filename })} />
                          <Button
                            size="compact-sm"
                            variant="light"
                            leftSection={<IconQrcode size={14} />}
                            onClick={() => setQr(profile)}
                            data-testid="show-qr"
                          >
                            {t('clients.qr')}
                          </Button>
                          <Button
                            size="compact-sm"
                            variant="default"
                            leftSection={<IconDownload size={14} />}
                            onClick={() =>
                              saveFile(new Blob([profile.body], { type: profile.mimeType }), profile.filename)
                            }
                          >
                            {t('common.download')}
                          </Button>
                        </Group>
                      </Group>
                    ))}
                  </Stack>
                </Accordion.Panel>
              </Accordion.Item>
            ))}
          </Accordion>
        </Stack>
      )}
      {qr && <QrModal profile={qr} onClose={() => setQr(null)} />}
    </Modal>
  );
}

function QrModal({ profile, onClose }: { profile: Schemas['ProfileDto']; onClose: () => void }) {
  const [url, setUrl] = useState<string>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    QRCode.toDataURL(profile.body, { errorCorrectionLevel: 'M', margin: 2, width: 320 }).then(setUrl, (e: unknown) =>
      setError(messageOf(e)),
    );
  }, [profile.body]);
  return (
    <Modal opened onClose={onClose} title={profile.filename} centered>
      <Center>
        {error ? (
          <Text c="red">{error}</Text>
        ) : url ? (
          <Image src={url} alt={profile.filename} w={320} h={320} data-testid="qr-code" />
        ) : (
          <PageLoader />
        )}
      </Center>
      <Text size="xs" c="dimmed" ta="center" mt="xs">
        {profile.interfaceName} · {profile.hostName}
      </Text>
    </Modal>
  );
}
