import { notifications } from '@mantine/notifications';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, messageOf, must } from '../../api.js';
import { queryKeys } from '../../api/queries.js';
import type { toBody } from '../client-form.js';

/**
 * The changes made from a client's drawer: the form's update (which ends editing), enabling,
 * reset, key rotation and delete (which closes the drawer). Each refreshes the client and the list.
 */
export function useClientMutations(id: string, { onSaved, onDeleted }: { onSaved: () => void; onDeleted: () => void }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: queryKeys.client(id) });
    void queryClient.invalidateQueries({ queryKey: queryKeys.clients });
  };
  const done = (message: string) => () => {
    notifications.show({ message, color: 'teal' });
    refresh();
  };
  const failed = (error: unknown) => notifications.show({ message: messageOf(error), color: 'red' });
  const update = useMutation({
    mutationFn: (body: Partial<ReturnType<typeof toBody>> & { enabled?: boolean }) =>
      must(api.PATCH('/api/clients/{id}', { params: { path: { id } }, body })),
    onSuccess: () => {
      onSaved();
      done(t('common.saved'))();
    },
  });
  const toggle = useMutation({
    mutationFn: (enabled: boolean) =>
      must(api.PATCH('/api/clients/{id}', { params: { path: { id } }, body: { enabled } })),
    onSuccess: done(t('common.saved')),
    onError: failed,
  });
  const reset = useMutation({
    mutationFn: () => must(api.POST('/api/clients/{id}/reset', { params: { path: { id } } })),
    onSuccess: done(t('clients.resetDone')),
    onError: failed,
  });
  const rotate = useMutation({
    mutationFn: () => must(api.POST('/api/clients/{id}/rotate-keys', { params: { path: { id } } })),
    onSuccess: done(t('clients.rotated')),
    onError: failed,
  });
  const remove = useMutation({
    mutationFn: () => must(api.DELETE('/api/clients/{id}', { params: { path: { id } } })),
    onSuccess: () => {
      refresh();
      onDeleted();
    },
    onError: failed,
  });
  return { refresh, update, toggle, reset, rotate, remove };
}
