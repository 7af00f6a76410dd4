import { useMutation, useQueryClient } from '@tanstack/react-query';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { api, must } from '../../api.js';
import { ConfirmButton, notifyFailure } from '../../components/common.js';
import { queryKeys } from '../../api/queries.js';
import type { Node } from './types.js';

type TunnelAction = 'restart' | 'stop' | 'start';

/**
 * A node's tunnels: restart them, or stop them (every interface down until started) and start
 * them again. Each asks first: all of the node's clients lose their tunnels for a moment, or
 * until started (docs/interfaces.md, "Restart, stop, start").
 */
export function TunnelButtons({ node }: { node: Node }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const act = useMutation({
    mutationFn: (action: TunnelAction) => {
      const options = { body: { nodeId: node.id } };
      const sent =
        action === 'restart'
          ? api.POST('/api/tunnels/restart', options)
          : action === 'stop'
            ? api.POST('/api/tunnels/stop', options)
            : api.POST('/api/tunnels/start', options);
      return must(sent).then(() => action);
    },
    onSuccess: (action) => {
      notifications.show({ message: t(`nodes.tunnels.done.${action}`, { name: node.name }), color: 'teal' });
      void queryClient.invalidateQueries({ queryKey: queryKeys.nodes });
      void queryClient.invalidateQueries({ queryKey: queryKeys.interfaces });
    },
    onError: notifyFailure,
  });
  if (node.interfaceCount === 0) return null;
  return node.tunnelsStopped ? (
    <ConfirmButton
      color="teal"
      message={t('nodes.tunnels.confirm.start', { name: node.name })}
      onConfirm={() => act.mutate('start')}
      data-testid="tunnels-start"
    >
      {t('nodes.tunnels.start')}
    </ConfirmButton>
  ) : (
    <>
      <ConfirmButton
        color="orange"
        message={t('nodes.tunnels.confirm.restart', { name: node.name })}
        onConfirm={() => act.mutate('restart')}
        data-testid="tunnels-restart"
      >
        {t('nodes.tunnels.restart')}
      </ConfirmButton>
      <ConfirmButton
        message={t('nodes.tunnels.confirm.stop', { name: node.name })}
        onConfirm={() => act.mutate('stop')}
        data-testid="tunnels-stop"
      >
        {t('nodes.tunnels.stop')}
      </ConfirmButton>
    </>
  );
}
