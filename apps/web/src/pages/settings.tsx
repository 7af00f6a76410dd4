import { Button, Card, Group, Select, Stack, Switch, TextInput } from '@mantine/core';
import { NumberInput } from '../components/number-input.js';
import { notifications } from '@mantine/notifications';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, must, type Schemas } from '../api.js';
import { PageHeader } from '../components/common.js';
import { FormError, useFieldErrors } from '../components/form-errors.js';
import { PageLoader } from '../components/page-loader.js';
import { TelegramSettingsCard } from '../components/telegram-settings-card.js';
import { useCanManage, useUser } from '../session.js';
import { queryKeys, useSettings } from '../api/queries.js';
import { SharingCard } from './settings/sharing-card.js';

type Settings = Schemas['SettingsDto'];
/** What only the owner may change (the API refuses these keys from anyone else, even unchanged). */
const OWNER_ONLY: (keyof Settings)[] = [
  'backupIntervalHours',
  'backupKeep',
  'allowPrivateTargets',
  'auditRetentionDays',
];

/** Panel-wide options (GET/PATCH /api/settings): written together, refused together. */
export default function SettingsPage() {
  const { t } = useTranslation();
  const canManage = useCanManage();
  const isOwner = useUser().role === 'owner';
  const locked = (key: keyof Settings) => !canManage || (OWNER_ONLY.includes(key) && !isOwner);
  const queryClient = useQueryClient();
  const settings = useSettings();
  const [values, setValues] = useState<Settings | null>(null);
  useEffect(() => {
    if (settings.data && !values) setValues(settings.data);
  }, [settings.data, values]);
  const save = useMutation({
    mutationFn: (body: Partial<Settings>) => must(api.PATCH('/api/settings', { body })),
    onSuccess: (saved) => {
      queryClient.setQueryData(queryKeys.settings, saved);
      setValues(saved);
      notifications.show({ message: t('common.saved'), color: 'teal' });
    },
  });
  const errors = useFieldErrors(save.error, values ?? {});
  if (!values) return <PageLoader />;
  const set = <K extends keyof Settings>(key: K, value: Settings[K]) => setValues({ ...values, [key]: value });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const wanted: Settings = {
      ...values,
      backupIntervalHours: Number(values.backupIntervalHours),
      backupKeep: Number(values.backupKeep),
      probeTimeoutMs: Number(values.probeTimeoutMs),
      hopCheckIntervalSeconds: Number(values.hopCheckIntervalSeconds),
      auditRetentionDays: Number(values.auditRetentionDays),
      sharingWindowMinutes: Number(values.sharingWindowMinutes),
      sharingMaxAddresses: Number(values.sharingMaxAddresses),
    };
    // Only what changed: the fields given are what the API checks (and some are the owner's alone).
    const changed = Object.fromEntries(
      Object.entries(wanted).filter(([key, value]) => settings.data?.[key as keyof Settings] !== value),
    );
    save.mutate(changed);
  };
  const error = save.error;
  return (
    <>
      <PageHeader title={t('nav.settings')} />
      <Card withBorder maw={640}>
        <Stack component="form" onSubmit={submit} gap="sm">
          <Group grow align="flex-end">
            <NumberInput
              label={t('settings.backupIntervalHours')}
              description={t('settings.zeroOff')}
              min={0}
              value={values.backupIntervalHours}
              onChange={(v) => set('backupIntervalHours', v as number)}
              error={errors.of('backupIntervalHours')}
              disabled={locked('backupIntervalHours')}
            />
            <NumberInput
              label={t('settings.backupKeep')}
              min={1}
              value={values.backupKeep}
              onChange={(v) => set('backupKeep', v as number)}
              error={errors.of('backupKeep')}
              disabled={locked('backupKeep')}
            />
          </Group>
          <TextInput
            label={t('settings.probeUrl')}
            value={values.probeUrl}
            onChange={(e) => set('probeUrl', e.currentTarget.value)}
            error={errors.of('probeUrl')}
            disabled={!canManage}
          />
          <NumberInput
            label={t('settings.probeTimeoutMs')}
            min={1}
            value={values.probeTimeoutMs}
            onChange={(v) => set('probeTimeoutMs', v as number)}
            error={errors.of('probeTimeoutMs')}
            disabled={!canManage}
          />
          <NumberInput
            label={t('settings.hopCheckIntervalSeconds')}
            description={t('settings.hopCheckIntervalHelp')}
            min={0}
            value={values.hopCheckIntervalSeconds}
            onChange={(v) => set('hopCheckIntervalSeconds', v as number)}
            error={errors.of('hopCheckIntervalSeconds')}
            disabled={!canManage}
          />
          <NumberInput
            label={t('settings.auditRetentionDays')}
            description={t('settings.auditRetentionHelp')}
            min={1}
            value={values.auditRetentionDays}
            onChange={(v) => set('auditRetentionDays', v as number)}
            error={errors.of('auditRetentionDays')}
            disabled={locked('auditRetentionDays')}
            data-testid="audit-retention"
          />
          <Group grow align="flex-end">
            <NumberInput
              label={t('settings.sharingWindowMinutes')}
              min={1}
              value={values.sharingWindowMinutes}
              onChange={(v) => set('sharingWindowMinutes', v as number)}
              error={errors.of('sharingWindowMinutes')}
              disabled={!canManage}
              data-testid="sharing-window"
            />
            <NumberInput
              label={t('settings.sharingMaxAddresses')}
              min={2}
              value={values.sharingMaxAddresses}
              onChange={(v) => set('sharingMaxAddresses', v as number)}
              error={errors.of('sharingMaxAddresses')}
              disabled={!canManage}
              data-testid="sharing-max"
            />
          </Group>
          <Select
            label={t('settings.sharingAction')}
            description={t('settings.sharingActionHelp')}
            data={(['flag', 'disable'] as const).map((value) => ({ value, label: t(`sharing.actions.${value}`) }))}
            value={values.sharingAction}
            onChange={(value) => value && set('sharingAction', value as Settings['sharingAction'])}
            allowDeselect={false}
            error={errors.of('sharingAction')}
            disabled={!canManage}
            data-testid="sharing-action"
          />
          <Switch
            label={t('settings.allowPrivateTargets')}
            checked={values.allowPrivateTargets}
            onChange={(e) => set('allowPrivateTargets', e.currentTarget.checked)}
            disabled={locked('allowPrivateTargets')}
          />
          <FormError
            error={error}
            fields={[
              'backupIntervalHours',
              'backupKeep',
              'probeUrl',
              'probeTimeoutMs',
              'hopCheckIntervalSeconds',
              'auditRetentionDays',
              'allowPrivateTargets',
              'sharingWindowMinutes',
              'sharingMaxAddresses',
              'sharingAction',
            ]}
          />
          {canManage && (
            <Group justify="flex-end">
              <Button type="submit" loading={save.isPending} data-testid="save-settings">
                {t('common.save')}
              </Button>
            </Group>
          )}
        </Stack>
      </Card>
      {canManage && <TelegramSettingsCard />}
      {isOwner && <SharingCard />}
    </>
  );
}
