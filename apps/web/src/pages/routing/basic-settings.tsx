import { Button, Card, Group, Select, SimpleGrid, Stack, Switch, TagsInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, must } from '../../api.js';
import { FormError, useFieldErrors } from '../../components/form-errors.js';
import type { Routing } from './types.js';

const BASIC_LISTS = ['blockDomains', 'blockIps', 'blockPorts', 'directDomains', 'directIps'] as const;

export function BasicSettings({
  nodeId,
  routing,
  tags,
  canManage,
}: {
  nodeId: string;
  routing: Routing;
  tags: string[];
  canManage: boolean;
}) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [values, setValues] = useState(routing.basic);
  useEffect(() => setValues(routing.basic), [routing.basic]);
  const save = useMutation({
    mutationFn: () => must(api.PUT('/api/routing', { params: { query: { nodeId } }, body: values })),
    onSuccess: (saved) => {
      queryClient.setQueryData(['routing', nodeId], saved);
      notifications.show({ message: t('common.saved'), color: 'teal' });
    },
  });
  const errors = useFieldErrors(save.error, values);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <Card withBorder component="form" onSubmit={submit}>
      <Stack gap="sm">
        {/* One row on a wide screen; stacked on a phone, where three side by side squeeze the labels. */}
        <SimpleGrid cols={{ base: 1, sm: 3 }} style={{ alignItems: 'end' }}>
          <Select
            label={t('routing.defaultOutbound')}
            data={tags}
            value={values.defaultOutbound}
            onChange={(tag) => tag && setValues({ ...values, defaultOutbound: tag })}
            error={errors.of('defaultOutbound')}
            disabled={!canManage}
          />
          <Switch
            label={t('routing.blockBitTorrent')}
            checked={values.blockBitTorrent}
            onChange={(e) => setValues({ ...values, blockBitTorrent: e.currentTarget.checked })}
            disabled={!canManage}
          />
          <Switch
            label={t('routing.failClosed')}
            description={t('routing.failClosedHelp')}
            checked={values.failClosed}
            onChange={(e) => setValues({ ...values, failClosed: e.currentTarget.checked })}
            disabled={!canManage}
          />
        </SimpleGrid>
        <SimpleGrid cols={{ base: 1, md: 2 }}>
          {BASIC_LISTS.map((list) => (
            <TagsInput
              key={list}
              label={t(`routing.basic.${list}`)}
              value={values[list]}
              onChange={(value) => setValues({ ...values, [list]: value })}
              error={errors.of(list)}
              disabled={!canManage}
            />
          ))}
        </SimpleGrid>
        <FormError error={save.error} fields={['defaultOutbound', 'blockBitTorrent', 'failClosed', ...BASIC_LISTS]} />
        {canManage && (
          <Group justify="flex-end">
            <Button type="submit" loading={save.isPending}>
              {t('common.save')}
            </Button>
          </Group>
        )}
      </Stack>
    </Card>
  );
}
