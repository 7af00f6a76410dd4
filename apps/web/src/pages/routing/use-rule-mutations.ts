import { notifications } from '@mantine/notifications';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, messageOf, must } from '../../api.js';
import { queryKeys } from '../../api/queries.js';
import type { Routing, Rule } from './types.js';

/**
 * The changes made from a rule's card: the order (shown at once; if the API refuses it, the order
 * the server has comes back), enabling and deleting. A refusal shows as a notification.
 */
export function useRuleMutations(nodeId: string | null) {
  const queryClient = useQueryClient();
  const key = queryKeys.routing(nodeId);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: queryKeys.routing() });
  const failed = (error: unknown) => notifications.show({ message: messageOf(error), color: 'red' });

  const order = useMutation({
    mutationFn: (ids: string[]) =>
      must(api.POST('/api/routing/rules/order', { params: { query: { nodeId: nodeId! } }, body: { ids } })),
    onMutate: (ids) => {
      const before = queryClient.getQueryData<Routing>(key);
      if (before)
        queryClient.setQueryData<Routing>(key, {
          ...before,
          rules: ids.map((id) => before.rules.find((rule) => rule.id === id)!),
        });
      return { before };
    },
    onError: (error, _ids, context) => {
      if (context?.before) queryClient.setQueryData(key, context.before);
      failed(error);
    },
    onSuccess: (saved) => queryClient.setQueryData(key, saved),
  });
  const toggle = useMutation({
    mutationFn: (rule: Rule) =>
      must(
        api.PATCH('/api/routing/rules/{id}', { params: { path: { id: rule.id } }, body: { enabled: !rule.enabled } }),
      ),
    onSuccess: refresh,
    onError: failed,
  });
  const remove = useMutation({
    mutationFn: (id: string) => must(api.DELETE('/api/routing/rules/{id}', { params: { path: { id } } })),
    onSuccess: refresh,
    onError: failed,
  });
  return { order, toggle, remove, refresh };
}
