import { Alert, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, must, type Schemas } from '../../api.js';
import { useFieldErrors } from '../../components/form-errors.js';
import { FormModal } from '../../components/form-modal.js';
import { queryKeys, useOverview } from '../../api/queries.js';

/** Adds a node (its enrolment command follows), or changes one's name, address or note. */
export function NodeModal({
  node,
  onClose,
  onCreated,
}: {
  node?: Schemas['NodeDto'];
  onClose: () => void;
  onCreated: (name: string, enrolment: Schemas['EnrolmentDto']) => void;
}) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [values, setValues] = useState({
    name: node?.name ?? '',
    address: node?.address ?? '',
    note: node?.note ?? '',
  });
  const create = useMutation({
    mutationFn: async () => {
      const body = { name: values.name.trim(), address: values.address.trim(), note: values.note };
      if (node) {
        await must(api.PATCH('/api/nodes/{id}', { params: { path: { id: node.id } }, body }));
        return undefined;
      }
      return must(api.POST('/api/nodes', { body }));
    },
    onSuccess: (created) => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.nodes });
      onClose();
      if (created?.enrolment) onCreated(created.name, created.enrolment as Schemas['EnrolmentDto']);
      else if (created?.enrolmentError) notifications.show({ message: created.enrolmentError, color: 'orange' });
    },
  });
  const errors = useFieldErrors(create.error, values);
  // Said before a node is added, not in a toast after: without REDIS_URL no remote agent can enrol.
  const panel = useOverview({ enabled: !node }).data?.panel;
  return (
    <FormModal
      title={node ? node.name : t('nodes.new')}
      onClose={onClose}
      save={create}
      fields={['name', 'address', 'note']}
      editing={Boolean(node)}
    >
      {!node && panel?.remoteNodes === false && (
        <Alert color="orange" title={t('health.remoteNeedsRedisTitle')} data-testid="remote-needs-redis">
          {t('health.remoteNeedsRedis')}
        </Alert>
      )}
      <TextInput
        label={t('common.name')}
        value={values.name}
        onChange={(e) => setValues({ ...values, name: e.currentTarget.value })}
        error={errors.of('name')}
      />
      <TextInput
        label={t('nodes.address')}
        value={values.address}
        onChange={(e) => setValues({ ...values, address: e.currentTarget.value })}
        error={errors.of('address')}
      />
      <TextInput
        label={t('nodes.note')}
        value={values.note}
        onChange={(e) => setValues({ ...values, note: e.currentTarget.value })}
        error={errors.of('note')}
      />
    </FormModal>
  );
}
