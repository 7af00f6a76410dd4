import { Alert, Button, FileButton, Progress, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconDownload, IconPlus, IconUpload } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, ApiError, messageOf, must, saveFile, type Schemas } from '../api.js';
import { ConfirmButton, formatBytes, formatDate, Sizes, PageHeader } from '../components/common.js';
import { ListTable } from '../components/list-table.js';
import { useUser } from '../session.js';
import { queryKeys } from '../api/queries.js';
import { mayUse } from '../page-access.js';

type Job = Schemas['BackupJobDto'];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Follows a job the API answered 202 for (GET /api/backups/jobs/{job}) until it is done; the
 * list's `running` shows its progress meanwhile.
 */
async function followJob(id: string, onProgress: (job: Job) => void): Promise<Job> {
  for (;;) {
    const job = await must(api.GET('/api/backups/jobs/{job}', { params: { path: { job: id } } }));
    onProgress(job);
    if (job.state === 'completed') return job;
    if (job.state === 'failed') throw new Error(job.error ?? 'failed');
    await sleep(1000);
  }
}

/**
 * Backups (docs/backups.md): the owner and admins make them (with progress) and list them; the
 * owner alone downloads, uploads, restores and deletes archives (they hold every secret of the
 * panel), so an admin is offered the buttons of what an admin may do and told the rest is the owner's.
 */
export default function BackupsPage() {
  const { t, i18n } = useTranslation();
  const user = useUser();
  const owner = user.role === 'owner';
  const queryClient = useQueryClient();
  const [job, setJob] = useState<Job | null>(null);
  const backups = useQuery({
    queryKey: queryKeys.backups,
    queryFn: () => must(api.GET('/api/backups')),
    enabled: mayUse('backups', user.role),
    // While a backup or restore runs, its progress is asked every second.
    refetchInterval: (query) => (query.state.data?.running || job ? 1000 : false),
  });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: queryKeys.backups });
  const runJob = async (start: () => Promise<{ data?: unknown; error?: unknown; response: Response }>) => {
    const answer = await start();
    if (answer.response.status === 202) {
      const accepted = answer.data as Job;
      setJob(accepted);
      await followJob(accepted.id, setJob);
    } else await must(Promise.resolve(answer));
  };
  const onDone = (message: string) => () => {
    setJob(null);
    refresh();
    notifications.show({ message, color: 'teal' });
  };
  const onFailed = (error: unknown) => {
    setJob(null);
    refresh();
    notifications.show({ message: messageOf(error), color: 'red' });
  };
  const create = useMutation({
    mutationFn: () => runJob(() => api.POST('/api/backups')),
    onSuccess: onDone(t('backups.created')),
    onError: onFailed,
  });
  const restore = useMutation({
    mutationFn: (name: string) => runJob(() => api.POST('/api/backups/{name}/restore', { params: { path: { name } } })),
    onSuccess: () => {
      onDone(t('backups.restored'))();
      void queryClient.invalidateQueries();
    },
    onError: onFailed,
  });
  const download = useMutation({
    mutationFn: async (name: string) => {
      const answer = await api.GET('/api/backups/{name}', { params: { path: { name } }, parseAs: 'blob' });
      if (!answer.response.ok) throw new ApiError(answer.response.status, answer.response.statusText, '');
      saveFile(answer.data as unknown as Blob, name);
    },
    onError: onFailed,
  });
  const upload = useMutation({
    mutationFn: (file: File) =>
      must(
        api.POST('/api/backups/upload', {
          body: file as never,
          bodySerializer: (body: unknown) => body as BodyInit,
          headers: { 'content-type': 'application/gzip' },
        }),
      ),
    onSuccess: onDone(t('backups.uploaded')),
    onError: onFailed,
  });
  const remove = useMutation({
    mutationFn: (name: string) => must(api.DELETE('/api/backups/{name}', { params: { path: { name } } })),
    onSuccess: refresh,
    onError: onFailed,
  });

  const running = job ?? backups.data?.running;
  const busy = Boolean(running) || create.isPending || restore.isPending || upload.isPending;
  return (
    <>
      <PageHeader title={t('nav.backups')}>
        {owner && (
          <FileButton onChange={(file) => file && upload.mutate(file)} accept=".gz,.tar.gz,application/gzip">
            {(props) => (
              <Button
                {...props}
                variant="default"
                leftSection={<IconUpload size={16} />}
                loading={upload.isPending}
                disabled={busy}
              >
                {t('backups.upload')}
              </Button>
            )}
          </FileButton>
        )}
        <Button
          leftSection={<IconPlus size={16} />}
          onClick={() => create.mutate()}
          loading={create.isPending}
          disabled={busy}
          data-testid="create-backup"
        >
          {t('backups.create')}
        </Button>
      </PageHeader>
      {!owner && (
        <Alert mb="md" color="gray" data-testid="backups-admin-hint">
          {t('backups.adminHint')}
        </Alert>
      )}
      {running && (
        <Alert mb="md" color="blue" title={t(`backups.running.${running.kind}`)} data-testid="backup-progress">
          <Stack gap={4}>
            <Text size="sm">
              {running.progress ? t(`backups.stage.${running.progress.stage}`) : t('backups.waiting')}
            </Text>
            <Progress
              value={running.progress?.percent ?? 0}
              animated
              aria-label={t(`backups.running.${running.kind}`)}
            />
          </Stack>
        </Alert>
      )}
      <ListTable
        rows={backups.data?.backups}
        empty={t('backups.empty')}
        rowKey={(backup) => backup.name}
        minWidth={600}
        cards
        testId="backups-table"
        columns={[
          { header: t('common.name'), naming: true, breakWords: true, cell: (backup) => backup.name },
          { header: t('backups.size'), cell: (backup) => <Sizes>{formatBytes(backup.size)}</Sizes> },
          { header: t('backups.createdAt'), cell: (backup) => formatDate(backup.createdAt, i18n.language) },
        ]}
        actions={(backup) =>
          owner && (
            <>
              <Button
                size="xs"
                variant="default"
                leftSection={<IconDownload size={14} />}
                onClick={() => download.mutate(backup.name)}
                data-testid="download-backup"
              >
                {t('common.download')}
              </Button>
              <ConfirmButton
                color="orange"
                disabled={busy}
                message={t('backups.confirmRestore', { name: backup.name })}
                confirmLabel={t('backups.restore')}
                onConfirm={() => restore.mutate(backup.name)}
              >
                {t('backups.restore')}
              </ConfirmButton>
              <ConfirmButton
                disabled={busy}
                message={t('backups.confirmDelete', { name: backup.name })}
                onConfirm={() => remove.mutate(backup.name)}
              >
                {t('common.delete')}
              </ConfirmButton>
            </>
          )
        }
      />
    </>
  );
}
