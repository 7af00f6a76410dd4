import {
  Alert,
  Badge,
  Button,
  Card,
  Checkbox,
  Code,
  Group,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, must, type Schemas } from '../api.js';
import { PageHeader } from '../components/common.js';
import { FormError, useFieldErrors } from '../components/form-errors.js';
import { NumberInput } from '../components/number-input.js';
import { PageLoader } from '../components/page-loader.js';
import { useUser } from '../session.js';

type NotifySettings = Schemas['NotifySettingsDto'];
type Switch = Schemas['NotifySwitchDto'];
type Channel = Switch['channel'];
type MailSettings = Schemas['MailSettingsDto'];

/** i18next splits keys at dots: a kind's label key has underscores instead. */
const kindKey = (kind: string) => `notify.kinds.${kind.replace('.', '_')}`;

/** Notifications (docs/notifications.md): switches per event and channel, webhooks, mail, tests. */
export default function NotificationsPage() {
  const { t } = useTranslation();
  const isOwner = useUser().role === 'owner';
  return (
    <>
      <PageHeader title={t('nav.notifications')}>{isOwner && <TestAll />}</PageHeader>
      <Stack gap="lg">
        {/* Webhooks, mail and the switches carry operators' sign-in addresses: the owner's, as the audit log is. */}
        <Switches readOnly={!isOwner} />
        {isOwner && <Webhooks />}
        {isOwner && <Mail />}
      </Stack>
    </>
  );
}

function TestAll() {
  const { t } = useTranslation();
  const test = useMutation({
    mutationFn: () => must(api.POST('/api/settings/notify/test')),
    onSuccess: (result) =>
      notifications.show({
        message: result.channels
          .map((one) => `${t(`notify.channels.${one.channel}`)}: ${one.ok ? t('notify.ok') : t('notify.failed')}`)
          .join(' · '),
        color: result.channels.every((one) => one.ok) ? 'teal' : 'red',
      }),
  });
  return (
    <Button variant="light" onClick={() => test.mutate()} loading={test.isPending} data-testid="notify-test">
      {t('notify.testAll')}
    </Button>
  );
}

function Switches({ readOnly }: { readOnly: boolean }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const read = useQuery({ queryKey: ['notify'], queryFn: () => must(api.GET('/api/settings/notify')) });
  const [values, setValues] = useState<NotifySettings | null>(null);
  useEffect(() => {
    if (read.data && !values) setValues(read.data);
  }, [read.data, values]);
  const save = useMutation({
    mutationFn: (body: Schemas['UpdateNotifySettingsDto']) => must(api.PATCH('/api/settings/notify', { body })),
    onSuccess: (saved) => {
      queryClient.setQueryData(['notify'], saved);
      setValues(saved);
      notifications.show({ message: t('common.saved'), color: 'teal' });
    },
  });
  const errors = useFieldErrors(save.error, values ?? {});
  if (!values) return <PageLoader />;
  const channels: Channel[] = ['webhook', 'telegram', 'mail'];
  const kinds = [...new Set(values.switches.map((one) => one.kind))].filter((kind) => kind !== 'panel.test');
  const on = (kind: string, channel: Channel) =>
    values.switches.find((one) => one.kind === kind && one.channel === channel)?.enabled ?? false;
  const flip = (kind: string, channel: Channel, enabled: boolean) =>
    setValues({
      ...values,
      switches: values.switches.map((one) =>
        one.kind === kind && one.channel === channel ? { ...one, enabled } : one,
      ),
    });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({
      expiryNoticeDays: Number(values.expiryNoticeDays),
      retentionDays: Number(values.retentionDays),
      switches: values.switches,
    });
  };
  return (
    <Card withBorder>
      <Stack component="form" onSubmit={submit} gap="sm">
        <Title order={3}>{t('notify.switches')}</Title>
        <Table.ScrollContainer minWidth={360}>
          <Table data-testid="notify-switches">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('notify.event')}</Table.Th>
                {channels.map((channel) => (
                  <Table.Th key={channel}>
                    {t(`notify.channels.${channel}`)}
                    {!values.channels.includes(channel) && (
                      <Text span size="xs" c="dimmed">
                        {' '}
                        ({t('notify.notInstalled')})
                      </Text>
                    )}
                  </Table.Th>
                ))}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {kinds.map((kind) => (
                <Table.Tr key={kind}>
                  <Table.Td>{t(kindKey(kind))}</Table.Td>
                  {channels.map((channel) => (
                    <Table.Td key={channel}>
                      <Checkbox
                        aria-label={`${t(kindKey(kind))} · ${t(`notify.channels.${channel}`)}`}
                        checked={on(kind, channel)}
                        disabled={readOnly}
                        onChange={(e) => flip(kind, channel, e.currentTarget.checked)}
                      />
                    </Table.Td>
                  ))}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
        <NumberInput
          label={t('notify.expiryNoticeDays')}
          min={1}
          max={60}
          maw={240}
          value={values.expiryNoticeDays}
          disabled={readOnly}
          onChange={(v) => setValues({ ...values, expiryNoticeDays: v as number })}
          error={errors.of('expiryNoticeDays')}
        />
        <NumberInput
          label={t('notify.retentionDays')}
          description={t('notify.retentionDaysHelp')}
          min={1}
          max={365}
          maw={320}
          value={values.retentionDays}
          disabled={readOnly}
          onChange={(v) => setValues({ ...values, retentionDays: v as number })}
          error={errors.of('retentionDays')}
        />
        <FormError error={save.error} fields={['expiryNoticeDays', 'retentionDays']} />
        {!readOnly && (
          <Group justify="flex-end">
            <Button type="submit" loading={save.isPending} data-testid="save-switches">
              {t('common.save')}
            </Button>
          </Group>
        )}
      </Stack>
    </Card>
  );
}

function Webhooks() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const list = useQuery({ queryKey: ['webhooks'], queryFn: () => must(api.GET('/api/webhooks')) });
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  const [logOf, setLogOf] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: () => must(api.POST('/api/webhooks', { body: { name, url } })),
    onSuccess: (made) => {
      setSecret(made.secret);
      setName('');
      setUrl('');
      void queryClient.invalidateQueries({ queryKey: ['webhooks'] });
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) => must(api.DELETE('/api/webhooks/{id}', { params: { path: { id } } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['webhooks'] }),
  });
  const errors = useFieldErrors(create.error, { name, url });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <Card withBorder>
      <Stack gap="sm">
        <Title order={3}>{t('notify.webhooks')}</Title>
        {secret && (
          <Alert color="yellow" data-testid="webhook-secret" withCloseButton onClose={() => setSecret(null)}>
            <Text size="sm">{t('notify.secretOnce')}</Text>
            <Code block>{secret}</Code>
          </Alert>
        )}
        <Table.ScrollContainer minWidth={360}>
          <Table data-testid="webhooks">
            <Table.Tbody>
              {(list.data ?? []).map((hook) => (
                <Table.Tr key={hook.id}>
                  <Table.Td>{hook.name}</Table.Td>
                  <Table.Td style={{ direction: 'ltr' }}>{hook.url}</Table.Td>
                  <Table.Td>
                    <Badge color={hook.enabled ? 'teal' : 'gray'}>
                      {hook.enabled ? t('notify.on') : t('notify.off')}
                    </Badge>
                  </Table.Td>
                  <Table.Td>
                    <Group gap="xs" wrap="nowrap">
                      <Button size="xs" variant="subtle" onClick={() => setLogOf(logOf === hook.id ? null : hook.id)}>
                        {t('notify.deliveries')}
                      </Button>
                      <Button size="xs" variant="subtle" color="red" onClick={() => remove.mutate(hook.id)}>
                        {t('common.delete')}
                      </Button>
                    </Group>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
        {list.data?.length === 0 && <Text c="dimmed">{t('notify.noWebhooks')}</Text>}
        {logOf && <Deliveries id={logOf} />}
        <Group component="form" onSubmit={submit} align="flex-end" wrap="wrap">
          <TextInput
            label={t('common.name')}
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            error={errors.of('name')}
          />
          <TextInput
            label={t('notify.url')}
            value={url}
            onChange={(e) => setUrl(e.currentTarget.value)}
            error={errors.of('url')}
            style={{ flex: 1, minWidth: 220 }}
            dir="ltr"
            data-testid="webhook-url"
          />
          <Button type="submit" loading={create.isPending} data-testid="add-webhook">
            {t('notify.addWebhook')}
          </Button>
        </Group>
        <FormError error={create.error} fields={['name', 'url']} />
      </Stack>
    </Card>
  );
}

function Deliveries({ id }: { id: string }) {
  const { t } = useTranslation();
  const log = useQuery({
    queryKey: ['webhooks', id, 'deliveries'],
    queryFn: () => must(api.GET('/api/webhooks/{id}/deliveries', { params: { path: { id } } })),
    refetchInterval: 5000,
  });
  if (!log.data) return <PageLoader />;
  if (log.data.length === 0) return <Text c="dimmed">{t('notify.noDeliveries')}</Text>;
  return (
    <Table data-testid="deliveries">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>{t('notify.event')}</Table.Th>
          <Table.Th>{t('notify.attempt')}</Table.Th>
          <Table.Th>{t('notify.status')}</Table.Th>
          <Table.Th>{t('notify.latency')}</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {log.data.map((row) => (
          <Table.Tr key={row.id}>
            <Table.Td>{t(kindKey(row.kind))}</Table.Td>
            <Table.Td>{row.attempt.toLocaleString()}</Table.Td>
            <Table.Td>
              <Badge color={row.ok ? 'teal' : 'red'}>{row.ok ? t('notify.ok') : t('notify.failed')}</Badge>
              {row.status !== null && (
                <Text span size="xs">
                  {' '}
                  {row.status.toLocaleString()}
                </Text>
              )}
              {row.error && (
                <Text size="xs" c="dimmed" dir="ltr">
                  {row.error}
                </Text>
              )}
            </Table.Td>
            <Table.Td>{t('common.ms', { value: row.latencyMs.toLocaleString() })}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

function Mail() {
  const { t } = useTranslation();
  const read = useQuery({ queryKey: ['mail'], queryFn: () => must(api.GET('/api/settings/mail')) });
  const [values, setValues] = useState<(MailSettings & { password: string; recipientsText: string }) | null>(null);
  useEffect(() => {
    if (read.data && !values)
      setValues({ ...read.data, password: '', recipientsText: read.data.recipients.join(', ') });
  }, [read.data, values]);
  const save = useMutation({
    mutationFn: (body: Schemas['UpdateMailSettingsDto']) => must(api.PATCH('/api/settings/mail', { body })),
    onSuccess: (saved) => {
      setValues({ ...saved, password: '', recipientsText: saved.recipients.join(', ') });
      notifications.show({ message: t('common.saved'), color: 'teal' });
    },
  });
  const test = useMutation({
    mutationFn: () => must(api.POST('/api/settings/mail/test', { body: {} })),
    onSuccess: (result) =>
      notifications.show({
        message: result.ok ? t('notify.mailSent') : `${t('notify.failed')}: ${result.error ?? ''}`,
        color: result.ok ? 'teal' : 'red',
      }),
  });
  const errors = useFieldErrors(save.error, values ?? {});
  if (!values) return <PageLoader />;
  const set = (changes: Partial<typeof values>) => setValues({ ...values, ...changes });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const { recipientsText, password, passwordSet: _set, ...rest } = values;
    save.mutate({
      ...rest,
      port: Number(rest.port),
      recipients: recipientsText
        .split(/[,\s]+/)
        .map((item) => item.trim())
        .filter(Boolean),
      ...(password ? { password } : {}),
    });
  };
  return (
    <Card withBorder>
      <Stack component="form" onSubmit={submit} gap="sm">
        <Title order={3}>{t('notify.mail')}</Title>
        <Switch
          label={t('notify.mailEnabled')}
          checked={values.enabled}
          onChange={(e) => set({ enabled: e.currentTarget.checked })}
        />
        <Group grow wrap="wrap" align="flex-end">
          <TextInput
            label={t('notify.host')}
            dir="ltr"
            value={values.host}
            onChange={(e) => set({ host: e.currentTarget.value })}
            error={errors.of('host')}
            data-testid="mail-host"
          />
          <NumberInput
            label={t('notify.port')}
            min={1}
            max={65535}
            value={values.port}
            onChange={(v) => set({ port: v as number })}
            error={errors.of('port')}
          />
        </Group>
        <Switch
          label={t('notify.secure')}
          checked={values.secure}
          onChange={(e) => set({ secure: e.currentTarget.checked })}
        />
        <Group grow wrap="wrap" align="flex-end">
          <TextInput
            label={t('notify.user')}
            dir="ltr"
            value={values.user}
            onChange={(e) => set({ user: e.currentTarget.value })}
            error={errors.of('user')}
          />
          <TextInput
            label={t('notify.password')}
            type="password"
            placeholder={values.passwordSet ? t('notify.passwordKept') : ''}
            value={values.password}
            onChange={(e) => set({ password: e.currentTarget.value })}
            error={errors.of('password')}
          />
        </Group>
        <TextInput
          label={t('notify.from')}
          dir="ltr"
          value={values.from}
          onChange={(e) => set({ from: e.currentTarget.value })}
          error={errors.of('from')}
        />
        <TextInput
          label={t('notify.recipients')}
          description={t('notify.recipientsHelp')}
          dir="ltr"
          value={values.recipientsText}
          onChange={(e) => set({ recipientsText: e.currentTarget.value })}
          error={errors.of('recipients')}
        />
        <FormError
          error={save.error}
          fields={['enabled', 'host', 'port', 'secure', 'user', 'password', 'from', 'recipients']}
        />
        <Group justify="flex-end">
          <Button variant="light" onClick={() => test.mutate()} loading={test.isPending} data-testid="mail-test">
            {t('notify.testMail')}
          </Button>
          <Button type="submit" loading={save.isPending} data-testid="save-mail">
            {t('common.save')}
          </Button>
        </Group>
        <FormError error={test.error} />
      </Stack>
    </Card>
  );
}
