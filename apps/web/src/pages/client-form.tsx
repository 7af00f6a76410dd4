import { Button, Group, MultiSelect, Select, SimpleGrid, Stack, TagsInput, Textarea, TextInput } from '@mantine/core';
import { NumberInput } from '../components/number-input.js';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { type Schemas } from '../api.js';
import { FormError, useFieldErrors } from '../components/form-errors.js';
import { useInterfaceOptions } from '../api/queries.js';
import { JalaliDateTimeInput } from '../components/jalali-picker.js';

const GB = 1024 ** 3;
const FIELDS = [
  'name',
  'note',
  'groups',
  'telegramId',
  'quotaBytes',
  'expiresAt',
  'deviceLimit',
  'interfaceIds',
  'resetCycle',
  'deviceNames',
];

export interface ClientFormValues {
  name: string;
  note: string;
  groups: string[];
  telegramId: string;
  quotaGb: number | string;
  expiresAt: string;
  deviceLimit: number | string;
  interfaceIds: string[];
  resetCycle: Schemas['ClientDto']['resetCycle'];
  /** At creation only: the first devices' names (none given: the API makes "device-1"). */
  deviceNames: string[];
}

export function initialValues(client?: Schemas['ClientDto']): ClientFormValues {
  return {
    name: client?.name ?? '',
    note: client?.note ?? '',
    groups: client?.groups ?? [],
    telegramId: client?.telegramId?.toString() ?? '',
    quotaGb: client?.quotaBytes ? +(client.quotaBytes / GB).toFixed(3) : 0,
    // datetime-local wants local time without zone
    expiresAt: client?.expiresAt ? toLocalInput(client.expiresAt) : '',
    deviceLimit: client?.deviceLimit ?? 1,
    interfaceIds: client?.interfaceIds ?? [],
    resetCycle: client?.resetCycle ?? 'none',
    deviceNames: [],
  };
}

/** "+30 days": from the current expiry if it is still ahead, else from now (an expired client gets 30 days). */
export function renewed(expiresAt: string, days: number): string {
  const from = Math.max(Date.now(), expiresAt ? new Date(expiresAt).getTime() : 0);
  return toLocalInput(new Date(from + days * 86_400_000).toISOString());
}

function toLocalInput(iso: string): string {
  const date = new Date(iso);
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

/** The body fields both create and change take, from what the form holds (the API validates; its message shows next to the field). */
export function toBody(values: ClientFormValues) {
  const telegram = values.telegramId.trim();
  return {
    name: values.name.trim(),
    note: values.note,
    groups: values.groups,
    telegramId: telegram === '' ? null : Number(telegram),
    quotaBytes: Math.round(Number(values.quotaGb || 0) * GB),
    expiresAt: values.expiresAt ? new Date(values.expiresAt).toISOString() : null,
    deviceLimit: Number(values.deviceLimit),
    interfaceIds: values.interfaceIds,
    resetCycle: values.resetCycle,
  };
}

/** The client's fields; keeps what was typed when the server refuses (the error shows beside its field). */
export function ClientForm({
  initial,
  error,
  pending,
  submitLabel,
  onSubmit,
  creating = false,
}: {
  initial: ClientFormValues;
  error: unknown;
  pending: boolean;
  submitLabel: string;
  onSubmit: (values: ClientFormValues) => void;
  creating?: boolean;
}) {
  const { t, i18n } = useTranslation();
  const [values, setValues] = useState(initial);
  const set = <K extends keyof ClientFormValues>(key: K, value: ClientFormValues[K]) =>
    setValues((before) => ({ ...before, [key]: value }));
  const interfaces = useInterfaceOptions();
  const errors = useFieldErrors(error, { ...values, quotaBytes: values.quotaGb });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit(values);
  };
  const renew = (
    <Button size="compact-xs" variant="light" onClick={() => set('expiresAt', renewed(values.expiresAt, 30))}>
      {t('clients.plusDays', { days: 30 })}
    </Button>
  );
  return (
    <Stack component="form" onSubmit={submit} gap="sm">
      <TextInput
        label={t('common.name')}
        description={creating ? t('clients.nameOptional') : undefined}
        name="name"
        value={values.name}
        onChange={(e) => set('name', e.currentTarget.value)}
        error={errors.of('name')}
      />
      <MultiSelect
        label={t('clients.interfaces')}
        name="interfaceIds"
        data={interfaces.options}
        value={values.interfaceIds}
        onChange={(value) => set('interfaceIds', value)}
        error={errors.of('interfaceIds')}
        nothingFoundMessage={t('clients.noInterfaces')}
        data-testid="client-interfaces"
      />
      <SimpleGrid cols={{ base: 1, xs: 2 }}>
        <NumberInput
          label={t('clients.quotaGb')}
          description={t('clients.zeroUnlimited')}
          min={0}
          decimalScale={3}
          value={values.quotaGb}
          onChange={(value) => set('quotaGb', value)}
          error={errors.of('quotaBytes')}
        />
        <NumberInput
          label={t('clients.deviceLimit')}
          description={t('clients.zeroUnlimited')}
          name="deviceLimit"
          min={0}
          value={values.deviceLimit}
          onChange={(value) => set('deviceLimit', value)}
          error={errors.of('deviceLimit')}
        />
      </SimpleGrid>
      <SimpleGrid cols={{ base: 1, xs: 2 }}>
        {i18n.language === 'fa' ? (
          // The browser's own date picker knows only the Gregorian calendar.
          <JalaliDateTimeInput
            label={t('clients.expires')}
            value={values.expiresAt}
            onChange={(value) => set('expiresAt', value)}
            error={errors.of('expiresAt')}
            rightSectionWidth={88}
            rightSection={renew}
          />
        ) : (
          <TextInput
            type="datetime-local"
            label={t('clients.expires')}
            name="expiresAt"
            value={values.expiresAt}
            onChange={(e) => set('expiresAt', e.currentTarget.value)}
            error={errors.of('expiresAt')}
            rightSectionWidth={88}
            rightSection={renew}
          />
        )}
        <Select
          label={t('clients.resetCycle')}
          data={(['none', 'daily', 'weekly', 'monthly'] as const).map((value) => ({
            value,
            label: t(`clients.cycle.${value}`),
          }))}
          value={values.resetCycle}
          onChange={(value) => value && set('resetCycle', value as ClientFormValues['resetCycle'])}
          error={errors.of('resetCycle')}
        />
      </SimpleGrid>
      {creating && (
        <TagsInput
          label={t('clients.deviceNames')}
          description={t('clients.deviceNamesHelp')}
          value={values.deviceNames}
          onChange={(value) => set('deviceNames', value)}
          error={errors.of('deviceNames')}
        />
      )}
      <TagsInput
        label={t('clients.groups')}
        value={values.groups}
        onChange={(value) => set('groups', value)}
        error={errors.of('groups')}
      />
      <TextInput
        label={t('clients.telegramId')}
        inputMode="numeric"
        value={values.telegramId}
        onChange={(e) => set('telegramId', e.currentTarget.value)}
        error={errors.of('telegramId')}
      />
      <Textarea
        label={t('clients.note')}
        value={values.note}
        onChange={(e) => set('note', e.currentTarget.value)}
        error={errors.of('note')}
        autosize
        minRows={2}
      />
      <FormError error={error} fields={FIELDS} />
      <Group justify="flex-end">
        <Button type="submit" loading={pending} data-testid="client-submit">
          {submitLabel}
        </Button>
      </Group>
    </Stack>
  );
}
