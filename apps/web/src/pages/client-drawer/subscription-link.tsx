import { Button, Center, Code, Group, Image, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconExternalLink, IconQrcode } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, messageOf, must } from '../../api.js';
import { queryKeys } from '../../api/queries.js';
import { ConfirmButton, Copy } from '../../components/common.js';
import { Modal } from '../../components/layers.js';
import { PageLoader } from '../../components/page-loader.js';

/**
 * The client's subscription link (GET /api/clients/{id}/subscription, made the first time it is
 * asked for): the customer's own page, to copy, to show as a QR code, or to replace by a new one
 * (POST …/subscription/rotate: the old link answers 404 from then on, so the dialog says so).
 * Managers only, as the API.
 */
export function SubscriptionLink({ clientId, clientName }: { clientId: string; clientName: string }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [qr, setQr] = useState(false);
  const link = useQuery({
    queryKey: queryKeys.subscription(clientId),
    queryFn: () => must(api.GET('/api/clients/{id}/subscription', { params: { path: { id: clientId } } })),
  });
  const rotate = useMutation({
    mutationFn: () => must(api.POST('/api/clients/{id}/subscription/rotate', { params: { path: { id: clientId } } })),
    onSuccess: (answer) => {
      queryClient.setQueryData(queryKeys.subscription(clientId), answer);
      notifications.show({ message: t('subscription.rotated'), color: 'teal' });
    },
    onError: (error) => notifications.show({ message: messageOf(error), color: 'red' }),
  });
  if (link.error) return <Text c="red">{messageOf(link.error)}</Text>;
  const url = link.data?.url;
  return (
    <Stack gap="xs" data-testid="subscription-link">
      <Text size="sm" c="dimmed">
        {t('subscription.help')}
      </Text>
      {url ? (
        <Code dir="ltr" style={{ wordBreak: 'break-all' }} data-testid="subscription-url">
          {url}
        </Code>
      ) : (
        <PageLoader />
      )}
      <Group gap="xs">
        <Copy value={url ?? ''} label={t('subscription.copy')} />
        <Button
          size="xs"
          variant="light"
          leftSection={<IconQrcode size={14} />}
          disabled={!url}
          onClick={() => setQr(true)}
          data-testid="subscription-qr-open"
        >
          {t('subscription.qr')}
        </Button>
        <Button
          size="xs"
          variant="default"
          component="a"
          href={url}
          target="_blank"
          rel="noreferrer"
          leftSection={<IconExternalLink size={14} />}
        >
          {t('subscription.open')}
        </Button>
        <ConfirmButton
          message={t('subscription.confirmRotate', { name: clientName })}
          onConfirm={() => rotate.mutate()}
          color="orange"
          loading={rotate.isPending}
          data-testid="subscription-rotate"
        >
          {t('subscription.rotate')}
        </ConfirmButton>
      </Group>
      {qr && url && <LinkQr url={url} title={clientName} onClose={() => setQr(false)} />}
    </Stack>
  );
}

/** The link as a QR code, drawn in the browser (the qrcode library, loaded when first asked for). */
function LinkQr({ url, title, onClose }: { url: string; title: string; onClose: () => void }) {
  const { t } = useTranslation();
  const [image, setImage] = useState<string>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    import('qrcode')
      .then((QRCode) => QRCode.default.toDataURL(url, { errorCorrectionLevel: 'M', margin: 2, width: 320 }))
      .then(setImage, (e: unknown) => setError(messageOf(e)));
  }, [url]);
  return (
    <Modal opened onClose={onClose} title={`${t('subscription.title')} · ${title}`} centered>
      <Center>
        {error ? (
          <Text c="red">{error}</Text>
        ) : image ? (
          <Image src={image} alt={t('subscription.title')} w={280} h={280} data-testid="subscription-qr" />
        ) : (
          <PageLoader />
        )}
      </Center>
    </Modal>
  );
}
