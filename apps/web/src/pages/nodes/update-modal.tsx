import { Alert, Button, Group, Loader, Stack, Text } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, must, type Schemas } from '../../api.js';
import { Ltr } from '../../components/common.js';
import { Modal } from '../../components/layers.js';
import { queryKeys } from '../../api/queries.js';
import type { Node } from './types.js';

type NodeUpdate = Schemas['NodeUpdateDto'];
const FINISHED: NodeUpdate['state'][] = ['done', 'rolled-back', 'failed'];

/**
 * Updating a node's agent to the panel's package (POST /api/nodes/{id}/update): asks first, then
 * follows the update (GET, every second) until the new version linked, the node rolled back, or
 * it failed, each said in the panel's words.
 */
export function UpdateAgentModal({
  node,
  panelVersion,
  onClose,
}: {
  node: Node;
  panelVersion: string;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const start = useMutation({
    mutationFn: () => must(api.POST('/api/nodes/{id}/update', { params: { path: { id: node.id } }, body: {} })),
  });
  const progress = useQuery({
    queryKey: ['node-update', node.id],
    queryFn: () => must(api.GET('/api/nodes/{id}/update', { params: { path: { id: node.id } } })),
    enabled: start.isSuccess,
    initialData: start.data,
    gcTime: 0,
    refetchInterval: (query) => {
      const state = query.state.data?.state;
      if (state && FINISHED.includes(state)) {
        void queryClient.invalidateQueries({ queryKey: queryKeys.nodes });
        return false;
      }
      return 1000;
    },
  });
  const update = progress.data ?? start.data;
  return (
    <Modal opened onClose={onClose} title={t('nodes.update.title', { name: node.name })}>
      {start.isIdle ? (
        <Stack>
          <Text size="sm">
            {t('nodes.update.confirm', { name: node.name, from: node.agent.version ?? '?', to: panelVersion })}
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {t('common.cancel')}
            </Button>
            <Button color="orange" onClick={() => start.mutate()} data-testid="node-update-confirm">
              {t('nodes.update.button')}
            </Button>
          </Group>
        </Stack>
      ) : start.isError ? (
        <Alert color="red" variant="light" role="alert" data-testid="node-update-error">
          {start.error.message}
        </Alert>
      ) : !update ? (
        <Group justify="center" py="md">
          <Loader size="sm" />
        </Group>
      ) : (
        <UpdateProgress update={update} />
      )}
    </Modal>
  );
}

function UpdateProgress({ update }: { update: NodeUpdate }) {
  const { t } = useTranslation();
  const versions = { from: update.fromVersion, to: update.toVersion };
  if (update.state === 'done')
    return (
      <Alert color="green" data-testid="node-update-state" data-state={update.state}>
        {t('nodes.update.state.done', versions)}
      </Alert>
    );
  if (update.state === 'rolled-back' || update.state === 'failed')
    return (
      <Alert
        color={update.state === 'failed' ? 'red' : 'orange'}
        role="alert"
        data-testid="node-update-state"
        data-state={update.state}
      >
        <Text size="sm" fw={500}>
          {t(`nodes.update.state.${update.state}`, versions)}
        </Text>
        {update.error && (
          <Text size="sm">
            <Ltr>{update.error}</Ltr>
          </Text>
        )}
      </Alert>
    );
  return (
    <Group gap="sm" data-testid="node-update-state" data-state={update.state}>
      <Loader size="sm" />
      <Text size="sm">{t(`nodes.update.state.${update.state}`, versions)}</Text>
    </Group>
  );
}
