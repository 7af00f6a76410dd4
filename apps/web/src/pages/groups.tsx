import { Anchor, Badge, Button, MultiSelect, NumberInput, Text, TextInput } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { api, must, type Schemas } from '../api.js';
import { queryKeys, useInterfaceOptions } from '../api/queries.js';
import { EditAndDelete, formatBytes, Ltr, Sizes, notifyFailure, PageHeader } from '../components/common.js';
import { useFieldErrors } from '../components/form-errors.js';
import { FormModal } from '../components/form-modal.js';
import { ListTable } from '../components/list-table.js';
import { localDigits } from '../format.js';
import { useCanManage } from '../session.js';

type Group = Schemas['GroupDto'];
const GIB = 1024 ** 3;
const MBIT = 1_000_000;
export const GROUPS_KEY = queryKeys.groups;

/**
 * Groups (W-UI's /api/groups): every group with its member count and the defaults it gives the
 * clients made in it. Create, edit defaults, rename (members follow), delete (members stay).
 */
export default function GroupsPage() {
  const { t } = useTranslation();
  const canManage = useCanManage();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<Group | 'new' | null>(null);
  const [renaming, setRenaming] = useState<Group | null>(null);
  const groups = useQuery({ queryKey: GROUPS_KEY, queryFn: () => must(api.GET('/api/groups')) });
  const changed = () => {
    void queryClient.invalidateQueries({ queryKey: GROUPS_KEY });
    void queryClient.invalidateQueries({ queryKey: queryKeys.clients });
  };
  const remove = useMutation({
    mutationFn: (name: string) => must(api.POST('/api/groups/delete', { body: { name } })),
    onSuccess: changed,
    onError: notifyFailure,
  });
  return (
    <>
      <PageHeader title={t('nav.groups')}>
        {canManage && (
          <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing('new')} data-testid="new-group">
            {t('groups.new')}
          </Button>
        )}
      </PageHeader>
      <ListTable
        rows={groups.data}
        cards
        empty={t('groups.empty')}
        testId="groups-table"
        rowKey={(group) => group.name}
        minWidth={760}
        rowProps={(group) => ({ 'data-testid': `group-${group.name}` })}
        columns={[
          {
            header: t('groups.name'),
            naming: true,
            cell: (group) => (
              <>
                <bdi>{group.name}</bdi>
                {!group.defined && (
                  <Text size="xs" c="dimmed">
                    {t('groups.undefinedGroup')}
                  </Text>
                )}
              </>
            ),
          },
          {
            header: t('groups.members'),
            cell: (group) => (
              <Anchor component={Link} to={`/clients?group=${encodeURIComponent(group.name)}`} data-testid="members">
                {localDigits(String(group.members))}
              </Anchor>
            ),
          },
          {
            header: t('groups.quota'),
            cell: (group) => <Sizes>{group.quotaBytes ? formatBytes(group.quotaBytes) : '∞'}</Sizes>,
          },
          {
            header: t('groups.expiryDays'),
            cell: (group) => (group.expiryDays ? localDigits(String(group.expiryDays)) : t('groups.never')),
          },
          {
            header: t('groups.deviceLimit'),
            cell: (group) => <Ltr>{group.deviceLimit ? localDigits(String(group.deviceLimit)) : '∞'}</Ltr>,
          },
          {
            header: t('groups.speed'),
            cell: (group) =>
              group.rateBitsPerSec ? <Ltr>{localDigits(String(group.rateBitsPerSec / MBIT))}</Ltr> : '∞',
          },
          {
            header: t('groups.interfaces'),
            phone: false,
            cell: (group) =>
              group.interfaceIds.length > 0 && <Badge variant="light">{group.interfaceIds.length}</Badge>,
          },
        ]}
        actions={
          canManage
            ? (group) => (
                <>
                  <Button size="xs" variant="default" onClick={() => setRenaming(group)} data-testid="rename-group">
                    {t('groups.rename')}
                  </Button>
                  <EditAndDelete
                    onEdit={() => setEditing(group)}
                    confirmMessage={t('groups.confirmDelete', { name: group.name })}
                    onDelete={() => remove.mutate(group.name)}
                  />
                </>
              )
            : undefined
        }
      />
      {editing && (
        <GroupModal
          group={editing === 'new' ? undefined : editing}
          onClose={() => setEditing(null)}
          onSaved={changed}
        />
      )}
      {renaming && <RenameModal group={renaming} onClose={() => setRenaming(null)} onSaved={changed} />}
    </>
  );
}

/** Create a group, or replace a group's defaults (the same POST /api/groups). */
function GroupModal({ group, onClose, onSaved }: { group?: Group; onClose: () => void; onSaved: () => void }) {
  const { t } = useTranslation();
  const { options } = useInterfaceOptions();
  const [values, setValues] = useState({
    name: group?.name ?? '',
    note: group?.note ?? '',
    quotaGb: (group?.quotaBytes ?? 0) / GIB,
    expiryDays: group?.expiryDays ?? 0,
    deviceLimit: group?.deviceLimit ?? 1,
    speedMbit: (group?.rateBitsPerSec ?? 0) / MBIT,
    interfaceIds: group?.interfaceIds ?? [],
  });
  const set = <K extends keyof typeof values>(key: K, value: (typeof values)[K]) =>
    setValues((before) => ({ ...before, [key]: value }));
  const save = useMutation({
    mutationFn: () =>
      must(
        api.POST('/api/groups', {
          body: {
            name: values.name.trim(),
            note: values.note,
            quotaBytes: Math.round(values.quotaGb * GIB),
            expiryDays: values.expiryDays,
            deviceLimit: values.deviceLimit,
            rateBitsPerSec: Math.round(values.speedMbit * MBIT),
            interfaceIds: values.interfaceIds,
          },
        }),
      ),
    onSuccess: () => {
      onSaved();
      onClose();
    },
  });
  const errors = useFieldErrors(save.error, values);
  const number = (value: string | number) => (typeof value === 'number' ? value : 0);
  return (
    <FormModal
      title={group ? group.name : t('groups.new')}
      onClose={onClose}
      save={save}
      fields={['name', 'note', 'quotaBytes', 'expiryDays', 'deviceLimit', 'rateBitsPerSec', 'interfaceIds']}
      editing={Boolean(group?.defined)}
      submitTestId="save-group"
    >
      <TextInput
        label={t('groups.name')}
        value={values.name}
        onChange={(e) => set('name', e.currentTarget.value)}
        error={errors.of('name')}
        disabled={Boolean(group)}
        data-testid="group-name"
      />
      <TextInput
        label={t('groups.note')}
        value={values.note}
        onChange={(e) => set('note', e.currentTarget.value)}
        error={errors.of('note')}
      />
      <NumberInput
        label={t('clients.quotaGb')}
        description={t('clients.zeroUnlimited')}
        min={0}
        value={values.quotaGb}
        onChange={(value) => set('quotaGb', number(value))}
        error={errors.of('quotaBytes')}
        data-testid="group-quota"
      />
      <NumberInput
        label={t('groups.expiryDays')}
        description={t('groups.expiryDaysHint')}
        min={0}
        max={3650}
        allowDecimal={false}
        value={values.expiryDays}
        onChange={(value) => set('expiryDays', number(value))}
        error={errors.of('expiryDays')}
        data-testid="group-expiry-days"
      />
      <NumberInput
        label={t('groups.deviceLimit')}
        description={t('clients.zeroUnlimited')}
        min={0}
        max={50}
        allowDecimal={false}
        value={values.deviceLimit}
        onChange={(value) => set('deviceLimit', number(value))}
        error={errors.of('deviceLimit')}
      />
      <NumberInput
        label={t('groups.speed')}
        description={t('clients.zeroUnlimited')}
        min={0}
        value={values.speedMbit}
        onChange={(value) => set('speedMbit', number(value))}
        error={errors.of('rateBitsPerSec')}
      />
      <MultiSelect
        label={t('groups.interfaces')}
        description={t('groups.interfacesHint')}
        data={options}
        value={values.interfaceIds}
        onChange={(value) => set('interfaceIds', value)}
        error={errors.of('interfaceIds')}
        searchable
      />
    </FormModal>
  );
}

/** Rename: the group's defaults and every member's groups follow (one statement on the panel). */
function RenameModal({ group, onClose, onSaved }: { group: Group; onClose: () => void; onSaved: () => void }) {
  const { t } = useTranslation();
  const [newName, setNewName] = useState(group.name);
  const save = useMutation({
    mutationFn: () => must(api.POST('/api/groups/rename', { body: { name: group.name, newName: newName.trim() } })),
    onSuccess: () => {
      onSaved();
      onClose();
    },
  });
  const errors = useFieldErrors(save.error, { newName });
  return (
    <FormModal
      title={t('groups.rename')}
      onClose={onClose}
      save={save}
      fields={['newName']}
      editing
      submitTestId="save-rename"
    >
      <TextInput
        label={t('groups.newName')}
        value={newName}
        onChange={(e) => setNewName(e.currentTarget.value)}
        error={errors.of('newName')}
        data-testid="group-new-name"
      />
    </FormModal>
  );
}
