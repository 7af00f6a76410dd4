import { ActionIcon, Badge, Button, Group, Stack, TagsInput, Text, TextInput, Title } from '@mantine/core';
import { IconArrowDown, IconArrowUp, IconPlus } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, must, type Schemas } from '../../api.js';
import { queryKeys, useHostGroups } from '../../api/queries.js';
import { EditAndDelete, notifyFailure } from '../../components/common.js';
import { useFieldErrors } from '../../components/form-errors.js';
import { FormModal } from '../../components/form-modal.js';
import { ListTable } from '../../components/list-table.js';
import { localDigits } from '../../format.js';
import { GROUPS_KEY } from '../groups.js';

type HostGroup = Schemas['HostGroupDto'];

/** Moves one id a step up (-1) or down (+1) in a list of ids. */
export function moved(ids: string[], id: string, step: -1 | 1): string[] {
  const from = ids.indexOf(id);
  const to = from + step;
  if (from < 0 || to < 0 || to >= ids.length) return ids;
  const next = [...ids];
  [next[from], next[to]] = [next[to], next[from]];
  return next;
}

/**
 * Host groups in their order: each tied to client groups (its hosts go only to their clients;
 * untied, to everyone), renamed, moved up or down, deleted (its hosts stay, ungrouped).
 */
export function HostGroupsSection({ canManage }: { canManage: boolean }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const groups = useHostGroups();
  const [editing, setEditing] = useState<HostGroup | 'new' | null>(null);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: queryKeys.hosts });
  const reorder = useMutation({
    mutationFn: (ids: string[]) => must(api.POST('/api/hosts/groups/reorder', { body: { ids } })),
    onSuccess: refresh,
    onError: notifyFailure,
  });
  const remove = useMutation({
    mutationFn: (gid: string) => must(api.DELETE('/api/hosts/groups/{gid}', { params: { path: { gid } } })),
    onSuccess: refresh,
    onError: notifyFailure,
  });
  const ids = (groups.data ?? []).map((group) => group.id);
  return (
    <Stack gap="xs" mb="lg">
      <Group justify="space-between">
        <Title order={3} size="h4">
          {t('hosts.groups.title')}
        </Title>
        {canManage && (
          <Button
            size="xs"
            variant="light"
            leftSection={<IconPlus size={14} />}
            onClick={() => setEditing('new')}
            data-testid="new-host-group"
          >
            {t('hosts.groups.new')}
          </Button>
        )}
      </Group>
      <ListTable
        rows={groups.data}
        empty={t('hosts.groups.empty')}
        cards
        rowKey={(group) => group.id}
        minWidth={500}
        testId="host-groups-table"
        columns={[
          { header: t('common.name'), naming: true, cell: (group) => group.name },
          {
            header: t('hosts.groups.clientGroups'),
            wide: true,
            cell: (group) =>
              group.clientGroups.length === 0 ? (
                <Text size="sm" c="dimmed">
                  {t('hosts.groups.everyone')}
                </Text>
              ) : (
                <Group gap={4}>
                  {group.clientGroups.map((name) => (
                    <Badge key={name} variant="light">
                      {name}
                    </Badge>
                  ))}
                </Group>
              ),
          },
          { header: t('hosts.groups.hosts'), cell: (group) => localDigits(group.hosts) },
        ]}
        actions={(group) =>
          canManage && (
            <>
              <ActionIcon
                variant="default"
                aria-label={t('hosts.moveUp', { name: group.name })}
                disabled={ids[0] === group.id}
                onClick={() => reorder.mutate(moved(ids, group.id, -1))}
              >
                <IconArrowUp size={14} />
              </ActionIcon>
              <ActionIcon
                variant="default"
                aria-label={t('hosts.moveDown', { name: group.name })}
                disabled={ids[ids.length - 1] === group.id}
                onClick={() => reorder.mutate(moved(ids, group.id, 1))}
              >
                <IconArrowDown size={14} />
              </ActionIcon>
              <EditAndDelete
                onEdit={() => setEditing(group)}
                confirmMessage={t('hosts.groups.confirmDelete', { name: group.name })}
                onDelete={() => remove.mutate(group.id)}
              />
            </>
          )
        }
      />
      {editing && <HostGroupModal group={editing === 'new' ? undefined : editing} onClose={() => setEditing(null)} />}
    </Stack>
  );
}

function HostGroupModal({ group, onClose }: { group?: HostGroup; onClose: () => void }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const clientGroups = useQuery({ queryKey: GROUPS_KEY, queryFn: () => must(api.GET('/api/groups')) });
  const [values, setValues] = useState({ name: group?.name ?? '', clientGroups: group?.clientGroups ?? [] });
  const save = useMutation({
    mutationFn: () => {
      const body = { name: values.name.trim(), clientGroups: values.clientGroups };
      return group
        ? must(api.PUT('/api/hosts/groups/{gid}', { params: { path: { gid: group.id } }, body }))
        : must(api.POST('/api/hosts/groups', { body }));
    },
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.hosts });
      onClose();
    },
  });
  const errors = useFieldErrors(save.error, values);
  return (
    <FormModal
      title={group ? group.name : t('hosts.groups.new')}
      onClose={onClose}
      save={save}
      fields={['name', 'clientGroups']}
      editing={Boolean(group)}
    >
      <TextInput
        label={t('common.name')}
        value={values.name}
        onChange={(e) => setValues({ ...values, name: e.currentTarget.value })}
        error={errors.of('name')}
        data-testid="host-group-name"
      />
      <TagsInput
        label={t('hosts.groups.clientGroups')}
        description={t('hosts.groups.clientGroupsHelp')}
        data={(clientGroups.data ?? []).map((entry) => entry.name)}
        value={values.clientGroups}
        onChange={(value) => setValues({ ...values, clientGroups: value })}
        error={errors.of('clientGroups')}
        data-testid="host-group-client-groups"
      />
    </FormModal>
  );
}
