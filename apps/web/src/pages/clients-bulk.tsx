import { Anchor, Button, Group, Menu, NumberInput, Paper, Progress, Switch, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconChevronDown } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, must, type Schemas } from '../api.js';
import { queryKeys } from '../api/queries.js';
import { notifyFailure } from '../components/common.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { useFieldErrors } from '../components/form-errors.js';
import { FormModal } from '../components/form-modal.js';
import { localDigits } from '../format.js';

type Job = Schemas['BulkJobDto'];
type Filter = Schemas['ClientFilterDto'];
/** What a bulk request selects: these ids, or everything the list's filter matches. */
export type Selection = { ids: string[] } | { filter: Filter };
type Dialog = 'extend' | 'adjust' | 'addToGroup' | 'removeFromGroup' | 'delete' | 'reset' | null;
const GIB = 1024 ** 3;

/**
 * The bar over the clients list while rows are selected: how many (the page's, or all the filter
 * matches), the actions, and while a job runs its progress bar, then a toast with what it did.
 */
export function BulkBar({
  count,
  pageSelected,
  total,
  allMatching,
  selection,
  onSelectAll,
  onClear,
}: {
  count: number;
  pageSelected: boolean;
  total: number;
  allMatching: boolean;
  selection: Selection;
  onSelectAll: () => void;
  onClear: () => void;
}) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [dialog, setDialog] = useState<Dialog>(null);
  const [jobId, setJobId] = useState<string | null>(null);
  const started = (job: Job) => setJobId(job.id);
  const simple = useMutation({
    mutationFn: (action: 'enable' | 'disable' | 'delete' | 'reset') =>
      must(
        action === 'reset'
          ? api.POST('/api/clients/reset-all', { body: selection })
          : api.POST('/api/clients/bulk', { body: { ...selection, action } }),
      ),
    onSuccess: started,
    onError: notifyFailure,
  });
  const job = useQuery({
    queryKey: ['job', jobId],
    queryFn: () => must(api.GET('/api/jobs/{id}', { params: { path: { id: jobId! } } })),
    enabled: jobId !== null,
    refetchInterval: (query) => (query.state.data && isOver(query.state.data) ? false : 500),
  });
  useEffect(() => {
    const data = job.data;
    if (!data || !isOver(data)) return;
    const { done, total: all, changed, skipped, skippedReason } = data.progress;
    // "0 of 2 changed" alone says nothing: the job says how many it left alone and why.
    const why = skippedReason
      ? ` · ${t('bulk.skipped', { skipped, reason: t(`bulk.skipReason.${skippedReason}`) })}`
      : '';
    notifications.show({
      color: data.state === 'completed' ? 'teal' : 'red',
      message:
        data.state === 'completed'
          ? t('bulk.done', { action: actionLabel(t, data.action), changed, total: all }) + why
          : t('bulk.failed', { done, total: all, error: data.error ?? '' }),
      'data-testid': 'bulk-result',
    } as Parameters<typeof notifications.show>[0]);
    setJobId(null);
    onClear();
    void queryClient.invalidateQueries({ queryKey: queryKeys.clients });
  }, [job.data, onClear, queryClient, t]);

  const running = jobId !== null;
  const progress = job.data?.progress;
  return (
    <Paper withBorder p="xs" mb="sm" data-testid="bulk-bar">
      <Group justify="space-between" wrap="wrap" gap="xs">
        <Group gap="sm" wrap="wrap">
          <Text size="sm" fw={500} data-testid="bulk-count">
            {allMatching
              ? t('bulk.allSelected', { count: total, n: localDigits(String(total)) })
              : t('bulk.selected', { count })}
          </Text>
          {pageSelected && !allMatching && total > count && (
            <Anchor component="button" size="sm" onClick={onSelectAll} data-testid="select-all-matching">
              {t('bulk.selectAll', { count: total })}
            </Anchor>
          )}
          <Anchor component="button" size="sm" c="dimmed" onClick={onClear}>
            {t('bulk.clear')}
          </Anchor>
        </Group>
        <Menu position="bottom-end" withinPortal>
          <Menu.Target>
            <Button
              size="xs"
              rightSection={<IconChevronDown size={14} />}
              loading={running || simple.isPending}
              data-testid="bulk-actions"
            >
              {t('bulk.actions')}
            </Button>
          </Menu.Target>
          <Menu.Dropdown>
            <Menu.Item onClick={() => simple.mutate('enable')} data-testid="bulk-enable">
              {t('bulk.enable')}
            </Menu.Item>
            <Menu.Item onClick={() => simple.mutate('disable')} data-testid="bulk-disable">
              {t('bulk.disable')}
            </Menu.Item>
            <Menu.Item onClick={() => setDialog('extend')} data-testid="bulk-extend">
              {t('bulk.extend')}
            </Menu.Item>
            <Menu.Item onClick={() => setDialog('adjust')} data-testid="bulk-adjust">
              {t('bulk.adjust')}
            </Menu.Item>
            <Menu.Item onClick={() => setDialog('reset')} data-testid="bulk-reset">
              {t('bulk.reset')}
            </Menu.Item>
            <Menu.Item onClick={() => setDialog('addToGroup')} data-testid="bulk-add-group">
              {t('bulk.addToGroup')}
            </Menu.Item>
            <Menu.Item onClick={() => setDialog('removeFromGroup')} data-testid="bulk-remove-group">
              {t('bulk.removeFromGroup')}
            </Menu.Item>
            <Menu.Divider />
            <Menu.Item color="red" onClick={() => setDialog('delete')} data-testid="bulk-delete">
              {t('bulk.delete')}
            </Menu.Item>
          </Menu.Dropdown>
        </Menu>
      </Group>
      {running && (
        <>
          <Progress
            mt="xs"
            value={progress && progress.total > 0 ? (progress.done / progress.total) * 100 : 0}
            animated
            aria-label={t('bulk.running', { done: progress?.done ?? 0, total: progress?.total ?? 0 })}
            data-testid="bulk-progress"
          />
          <Text size="xs" c="dimmed" mt={4}>
            {t('bulk.running', { done: progress?.done ?? 0, total: progress?.total ?? 0 })}
          </Text>
        </>
      )}
      {/* Neither can be undone (usage zeroed, clients gone): asked first, like a single client's reset. */}
      {(['reset', 'delete'] as const).map((action) => (
        <ConfirmDialog
          key={action}
          opened={dialog === action}
          onClose={() => setDialog(null)}
          message={t(action === 'reset' ? 'bulk.confirmReset' : 'bulk.confirmDelete', {
            count: allMatching ? total : count,
          })}
          confirmLabel={t(action === 'reset' ? 'bulk.reset' : 'bulk.delete')}
          onConfirm={() => {
            setDialog(null);
            simple.mutate(action);
          }}
        />
      ))}
      {dialog === 'extend' && <ExtendModal selection={selection} onClose={() => setDialog(null)} onStarted={started} />}
      {dialog === 'adjust' && <AdjustModal selection={selection} onClose={() => setDialog(null)} onStarted={started} />}
      {(dialog === 'addToGroup' || dialog === 'removeFromGroup') && (
        <GroupModal
          selection={selection}
          remove={dialog === 'removeFromGroup'}
          onClose={() => setDialog(null)}
          onDone={() => {
            onClear();
            void queryClient.invalidateQueries({ queryKey: queryKeys.clients });
            void queryClient.invalidateQueries({ queryKey: ['groups'] });
          }}
        />
      )}
    </Paper>
  );
}

const isOver = (job: Job) => job.state === 'completed' || job.state === 'failed';

function actionLabel(t: (key: string) => string, action: string): string {
  const key = {
    enable: 'enable',
    disable: 'disable',
    delete: 'delete',
    reset: 'reset',
    extend: 'extend',
    adjust: 'adjust',
  }[action];
  return key ? t(`bulk.${key}`).replace('…', '') : action;
}

function ExtendModal({ selection, onClose, onStarted }: ModalProps) {
  const { t } = useTranslation();
  const [values, setValues] = useState({ days: 30, fromNow: false });
  const save = useMutation({
    mutationFn: () =>
      must(
        api.POST('/api/clients/extend', {
          body: { ...selection, days: values.days, from: values.fromNow ? 'now' : 'expiry' },
        }),
      ),
    onSuccess: (job) => {
      onStarted(job);
      onClose();
    },
  });
  const errors = useFieldErrors(save.error, values);
  return (
    <FormModal
      title={t('bulk.extend')}
      onClose={onClose}
      save={save}
      fields={['days']}
      editing
      submitTestId="run-extend"
    >
      <NumberInput
        label={t('bulk.days')}
        min={1}
        max={3650}
        allowDecimal={false}
        value={values.days}
        onChange={(value) => setValues((v) => ({ ...v, days: typeof value === 'number' ? value : 0 }))}
        error={errors.of('days')}
        data-testid="extend-days"
      />
      <Switch
        label={t('bulk.fromNow')}
        checked={values.fromNow}
        onChange={(e) => {
          const checked = e.currentTarget.checked;
          setValues((v) => ({ ...v, fromNow: checked }));
        }}
        data-testid="extend-from-now"
      />
      <Text size="xs" c="dimmed" data-testid="extend-skips-never">
        {t('bulk.extendSkipsNever')}
      </Text>
    </FormModal>
  );
}

function AdjustModal({ selection, onClose, onStarted }: ModalProps) {
  const { t } = useTranslation();
  const [gb, setGb] = useState<number>(10);
  const save = useMutation({
    mutationFn: () =>
      must(api.POST('/api/clients/adjust', { body: { ...selection, deltaBytes: Math.round(gb * GIB) } })),
    onSuccess: (job) => {
      onStarted(job);
      onClose();
    },
  });
  const errors = useFieldErrors(save.error, { deltaBytes: gb });
  return (
    <FormModal
      title={t('bulk.adjust')}
      onClose={onClose}
      save={save}
      fields={['deltaBytes']}
      editing
      submitTestId="run-adjust"
    >
      <NumberInput
        label={t('bulk.deltaGb')}
        value={gb}
        onChange={(value) => setGb(typeof value === 'number' ? value : 0)}
        error={errors.of('deltaBytes')}
        data-testid="adjust-gb"
      />
    </FormModal>
  );
}

function GroupModal({
  selection,
  remove,
  onClose,
  onDone,
}: {
  selection: Selection;
  remove: boolean;
  onClose: () => void;
  onDone: () => void;
}) {
  const { t } = useTranslation();
  const [name, setName] = useState('');
  const save = useMutation({
    mutationFn: () => must(api.POST('/api/groups/assign', { body: { ...selection, name: name.trim(), remove } })),
    onSuccess: (answer) => {
      notifications.show({ color: 'teal', message: t('bulk.grouped', { count: answer.clients }) });
      onDone();
      onClose();
    },
  });
  const errors = useFieldErrors(save.error, { name });
  return (
    <FormModal
      title={remove ? t('bulk.removeFromGroup') : t('bulk.addToGroup')}
      onClose={onClose}
      save={save}
      fields={['name']}
      editing
      submitTestId="run-group"
    >
      <TextInput
        label={t('bulk.groupName')}
        value={name}
        onChange={(e) => setName(e.currentTarget.value)}
        error={errors.of('name')}
        data-testid="bulk-group-name"
      />
    </FormModal>
  );
}

interface ModalProps {
  selection: Selection;
  onClose: () => void;
  onStarted: (job: Job) => void;
}
