import { Button, Group, Paper, Select, TagsInput, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, must, type Schemas } from '../../api.js';
import { queryKeys } from '../../api/queries.js';
import { ConfirmButton, notifyFailure } from '../../components/common.js';
import { localDigits } from '../../format.js';

type BulkAction = Schemas['HostBulkDto']['action'];

/**
 * What can be done to the selected hosts at once (POST /api/hosts/bulk, /api/hosts/groups/bulk):
 * enable, disable, delete, tag, untag, or move into a group. All or nothing: a refusal changes none.
 */
export function HostBulkBar({
  selected,
  groups,
  onDone,
}: {
  selected: string[];
  groups: Schemas['HostGroupDto'][];
  onDone: () => void;
}) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [tags, setTags] = useState<string[]>([]);
  const done = () => {
    void queryClient.invalidateQueries({ queryKey: queryKeys.hosts });
    onDone();
  };
  const bulk = useMutation({
    mutationFn: (action: BulkAction) =>
      must(
        api.POST('/api/hosts/bulk', {
          body: { ids: selected, action, ...(action === 'tag' || action === 'untag' ? { tags } : {}) },
        }),
      ),
    onSuccess: done,
    onError: notifyFailure,
  });
  const group = useMutation({
    mutationFn: (groupId: string | null) =>
      must(api.POST('/api/hosts/groups/bulk', { body: { groupId, hostIds: selected } })),
    onSuccess: done,
    onError: notifyFailure,
  });
  return (
    <Paper withBorder p="xs" mb="sm" data-testid="host-bulk">
      <Group gap="xs" wrap="wrap">
        <Text size="sm">{t('hosts.bulk.selected', { n: localDigits(selected.length) })}</Text>
        <Button size="xs" variant="default" onClick={() => bulk.mutate('enable')}>
          {t('hosts.bulk.enable')}
        </Button>
        <Button size="xs" variant="default" onClick={() => bulk.mutate('disable')}>
          {t('hosts.bulk.disable')}
        </Button>
        <ConfirmButton
          message={t('hosts.bulk.confirmDelete', { n: localDigits(selected.length) })}
          onConfirm={() => bulk.mutate('delete')}
        >
          {t('common.delete')}
        </ConfirmButton>
        <TagsInput
          size="xs"
          aria-label={t('hosts.tags')}
          placeholder={t('hosts.tags')}
          value={tags}
          onChange={setTags}
          w={180}
          data-testid="host-bulk-tags"
        />
        <Button size="xs" variant="default" disabled={tags.length === 0} onClick={() => bulk.mutate('tag')}>
          {t('hosts.bulk.tag')}
        </Button>
        <Button size="xs" variant="default" disabled={tags.length === 0} onClick={() => bulk.mutate('untag')}>
          {t('hosts.bulk.untag')}
        </Button>
        <Select
          size="xs"
          aria-label={t('hosts.bulk.moveToGroup')}
          placeholder={t('hosts.bulk.moveToGroup')}
          data={[
            { value: '', label: t('hosts.noGroup') },
            ...groups.map((entry) => ({ value: entry.id, label: entry.name })),
          ]}
          value={null}
          onChange={(value) => value !== null && group.mutate(value === '' ? null : value)}
          w={180}
          data-testid="host-bulk-group"
        />
      </Group>
    </Paper>
  );
}
