import { Alert, Button, List, Modal, Stack, Text } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, must, type Schemas } from '../../api.js';
import { Ltr, notifyFailure } from '../../components/common.js';

/** Checks a host (POST /api/hosts/{id}/check): does its address resolve, and to its node? */
export function HostCheckButton({ host }: { host: Schemas['HostDto'] }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const check = useMutation({
    mutationFn: () => must(api.POST('/api/hosts/{id}/check', { params: { path: { id: host.id } } })),
    onSuccess: () => setOpen(true),
    onError: notifyFailure,
  });
  const result = check.data;
  return (
    <>
      <Button size="xs" variant="default" loading={check.isPending} onClick={() => check.mutate()}>
        {t('hosts.check.button')}
      </Button>
      {open && result && (
        <Modal opened onClose={() => setOpen(false)} title={t('hosts.check.title', { name: host.name })}>
          <Stack gap="sm" data-testid="host-check-result">
            <Alert color={!result.resolves ? 'red' : result.matchesNode ? 'green' : 'yellow'}>
              {!result.resolves
                ? t('hosts.check.unresolved')
                : result.matchesNode
                  ? t('hosts.check.matches', { node: result.nodeName })
                  : t('hosts.check.elsewhere', { node: result.nodeName })}
            </Alert>
            {result.error && (
              <Text size="sm" c="red">
                {result.error}
              </Text>
            )}
            <Text size="sm" fw={500}>
              {t('hosts.check.addresses', { address: host.address })}
            </Text>
            <List size="sm">
              {result.addresses.map((address) => (
                <List.Item key={address}>
                  <Ltr>{address}</Ltr>
                </List.Item>
              ))}
            </List>
            {result.note && (
              <Text size="sm" c="dimmed">
                {result.note}
              </Text>
            )}
            <Text size="sm" fw={500}>
              {t('hosts.check.nodeAddresses', { node: result.nodeName })}
            </Text>
            <List size="sm">
              {result.nodeAddresses.map((address) => (
                <List.Item key={address}>
                  <Ltr>{address}</Ltr>
                </List.Item>
              ))}
            </List>
            {result.nodeNote && (
              <Text size="sm" c="dimmed">
                {result.nodeNote}
              </Text>
            )}
            {result.nodeError && (
              <Text size="sm" c="dimmed">
                {result.nodeError}
              </Text>
            )}
          </Stack>
        </Modal>
      )}
    </>
  );
}
