import { ActionIcon, Button, Card, Group, PasswordInput, Select, Stack, Switch, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, messageOf, must, type Schemas } from '../api.js';
import { queryKeys } from '../api/queries.js';
import { useUser } from '../session.js';
import { ConfirmButton } from './common.js';
import { FormError, useFieldErrors } from './form-errors.js';
import { NumberInput } from './number-input.js';

type TelegramSettings = Schemas['TelegramSettingsDto'];
type Update = Schemas['UpdateTelegramSettingsDto'];
const TELEGRAM_KEY = ['settings', 'telegram'] as const;
const MB = 1024 * 1024;

// A type, not an interface: the field errors read it as a record.
type Draft = {
  enabled: boolean;
  /** Typed here to replace the stored token; empty keeps it. */
  token: string;
  operatorChats: { chatId: number | string; userId: string | null }[];
  customerLanguage: TelegramSettings['customerLanguage'];
  sendBackups: boolean;
  backupMaxMb: number | string;
};

const draftOf = (settings: TelegramSettings): Draft => ({
  enabled: settings.enabled,
  token: '',
  operatorChats: settings.operatorChats.map((chat) => ({ chatId: chat.chatId, userId: chat.userId })),
  customerLanguage: settings.customerLanguage,
  sendBackups: settings.sendBackups,
  backupMaxMb: Math.round(settings.backupMaxBytes / MB),
});

/**
 * The Telegram bot's card on the Settings page (GET/PATCH /api/settings/telegram, docs/telegram.md):
 * on/off, the token (write-only: the panel says only whether one is set), the chats that speak
 * for operators, the customers' default language, backups to the owner, and a test message.
 * Removing the token (confirmed) also turns the bot off: the API refuses an enabled bot without
 * one. Admins see it; only the owner changes it.
 */
export function TelegramSettingsCard() {
  const { t } = useTranslation();
  const isOwner = useUser().role === 'owner';
  const queryClient = useQueryClient();
  const settings = useQuery({ queryKey: TELEGRAM_KEY, queryFn: () => must(api.GET('/api/settings/telegram')) });
  const users = useQuery({
    queryKey: queryKeys.operators,
    queryFn: () => must(api.GET('/api/admins')),
    enabled: isOwner,
  });
  const [draft, setDraft] = useState<Draft | null>(null);
  useEffect(() => {
    if (settings.data && !draft) setDraft(draftOf(settings.data));
  }, [settings.data, draft]);
  const save = useMutation({
    mutationFn: (body: Update) => must(api.PATCH('/api/settings/telegram', { body })),
    onSuccess: (saved) => {
      queryClient.setQueryData(TELEGRAM_KEY, saved);
      setDraft(draftOf(saved));
      notifications.show({ message: t('common.saved'), color: 'teal' });
    },
  });
  const test = useMutation({
    mutationFn: () => must(api.POST('/api/settings/notify/test')),
    // The test goes through every channel; this card reports Telegram's part.
    onSuccess: (result) => {
      const telegram = result.channels.find((channel) => channel.channel === 'telegram');
      notifications.show({
        message: telegram?.ok ? t('telegram.testSent') : t('telegram.testFailed', { error: telegram?.error ?? '' }),
        color: telegram?.ok ? 'teal' : 'orange',
      });
    },
    onError: (error) => notifications.show({ message: messageOf(error), color: 'red' }),
  });
  const errors = useFieldErrors(save.error, draft ?? {});
  if (!draft || !settings.data) return null;
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft({ ...draft, [key]: value });
  const setChat = (index: number, chat: Draft['operatorChats'][number]) =>
    set(
      'operatorChats',
      draft.operatorChats.map((old, i) => (i === index ? chat : old)),
    );
  const userOptions = (users.data ?? []).map((user) => ({ value: user.id, label: `${user.username} (${user.role})` }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({
      enabled: draft.enabled,
      ...(draft.token ? { token: draft.token.trim() } : {}),
      operatorChats: draft.operatorChats.map((chat) => ({ chatId: Number(chat.chatId), userId: chat.userId ?? '' })),
      customerLanguage: draft.customerLanguage,
      sendBackups: draft.sendBackups,
      backupMaxBytes: Math.round(Number(draft.backupMaxMb) * MB),
    });
  };
  return (
    <Card withBorder maw={640} mt="md" data-testid="telegram-settings">
      <Stack component="form" onSubmit={submit} gap="sm">
        <Title order={3}>{t('telegram.title')}</Title>
        <Text size="sm" c="dimmed">
          {t('telegram.intro')}
        </Text>
        <Switch
          label={t('telegram.enabled')}
          checked={draft.enabled}
          onChange={(e) => set('enabled', e.currentTarget.checked)}
          disabled={!isOwner}
        />
        <PasswordInput
          label={t('telegram.token')}
          description={settings.data.tokenSet ? t('telegram.tokenSet') : t('telegram.tokenNotSet')}
          placeholder="123456789:AA…"
          value={draft.token}
          onChange={(e) => set('token', e.currentTarget.value)}
          error={errors.of('token')}
          disabled={!isOwner}
          autoComplete="off"
        />
        {isOwner && settings.data.tokenSet && (
          <Group>
            <ConfirmButton
              message={t('telegram.removeTokenConfirm')}
              onConfirm={() => save.mutate({ token: null, enabled: false })}
              loading={save.isPending}
              data-testid="remove-telegram-token"
            >
              {t('telegram.removeToken')}
            </ConfirmButton>
          </Group>
        )}
        <Text size="sm" fw={500}>
          {t('telegram.operatorChats')}
        </Text>
        <Text size="xs" c="dimmed">
          {t('telegram.operatorChatsHelp')}
        </Text>
        {draft.operatorChats.map((chat, index) => (
          <Group key={index} align="flex-start" wrap="nowrap">
            <NumberInput
              aria-label={t('telegram.chatId')}
              placeholder={t('telegram.chatId')}
              allowDecimal={false}
              value={chat.chatId}
              onChange={(v) => setChat(index, { ...chat, chatId: v })}
              error={errors.of(`operatorChats[${index}].chatId`)}
              disabled={!isOwner}
            />
            <Select
              aria-label={t('telegram.operator')}
              placeholder={t('telegram.operator')}
              data={
                userOptions.length > 0
                  ? userOptions
                  : settings.data.operatorChats
                      .filter((known) => known.username)
                      .map((known) => ({ value: known.userId, label: `${known.username} (${known.role})` }))
              }
              value={chat.userId}
              onChange={(v) => setChat(index, { ...chat, userId: v })}
              error={errors.of(`operatorChats[${index}].userId`)}
              disabled={!isOwner}
            />
            {isOwner && (
              <ActionIcon
                variant="subtle"
                color="red"
                aria-label={t('common.delete')}
                onClick={() =>
                  set(
                    'operatorChats',
                    draft.operatorChats.filter((_, i) => i !== index),
                  )
                }
              >
                ×
              </ActionIcon>
            )}
          </Group>
        ))}
        {isOwner && (
          <Group>
            <Button
              variant="light"
              size="xs"
              onClick={() => set('operatorChats', [...draft.operatorChats, { chatId: '', userId: null }])}
            >
              {t('telegram.addChat')}
            </Button>
          </Group>
        )}
        <Select
          label={t('telegram.customerLanguage')}
          description={t('telegram.customerLanguageHelp')}
          data={[
            { value: 'en', label: 'English' },
            { value: 'fa', label: 'فارسی' },
          ]}
          value={draft.customerLanguage}
          onChange={(v) => v && set('customerLanguage', v as Draft['customerLanguage'])}
          allowDeselect={false}
          disabled={!isOwner}
        />
        <Switch
          label={t('telegram.sendBackups')}
          checked={draft.sendBackups}
          onChange={(e) => set('sendBackups', e.currentTarget.checked)}
          disabled={!isOwner}
        />
        <NumberInput
          label={t('telegram.backupMaxMb')}
          description={t('telegram.backupMaxMbHelp')}
          min={1}
          max={50}
          value={draft.backupMaxMb}
          onChange={(v) => set('backupMaxMb', v)}
          error={errors.of('backupMaxBytes')}
          disabled={!isOwner}
        />
        <FormError
          error={save.error}
          fields={['enabled', 'token', 'operatorChats', 'customerLanguage', 'sendBackups', 'backupMaxBytes']}
        />
        {isOwner && (
          <Group justify="flex-end">
            <Button
              variant="default"
              onClick={() => test.mutate()}
              loading={test.isPending}
              disabled={!settings.data.enabled}
              data-testid="telegram-test"
            >
              {t('telegram.test')}
            </Button>
            <Button type="submit" loading={save.isPending} data-testid="save-telegram">
              {t('common.save')}
            </Button>
          </Group>
        )}
      </Stack>
    </Card>
  );
}
