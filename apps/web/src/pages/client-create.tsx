import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, must, type Schemas } from '../api.js';
import { ClientForm, initialValues, toBody } from './client-form.js';
import { queryKeys } from '../api/queries.js';
import { Modal } from '../components/layers.js';

export default function ClientCreateModal({
  onClose,
  onCreated,
}: {
  onClose: () => void;
  onCreated: (client: Schemas['ClientDetailDto']) => void;
}) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: (body: ReturnType<typeof toBody> & { deviceNames?: string[] }) =>
      must(api.POST('/api/clients', { body })),
    onSuccess: (client) => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.clients });
      // A group typed here for the first time is a new name in the pickers.
      void queryClient.invalidateQueries({ queryKey: queryKeys.groupNames });
      onClose();
      onCreated(client);
    },
  });
  return (
    <Modal opened onClose={onClose} title={t('clients.new')} size="lg">
      <ClientForm
        creating
        initial={initialValues()}
        error={create.error}
        pending={create.isPending}
        submitLabel={t('common.create')}
        onSubmit={(values) =>
          create.mutate({
            ...toBody(values, true),
            // Left empty, the API names the client (client- and six random characters).
            ...(values.name.trim() ? {} : { name: undefined }),
            ...(values.deviceNames.length ? { deviceNames: values.deviceNames } : {}),
          })
        }
      />
    </Modal>
  );
}
