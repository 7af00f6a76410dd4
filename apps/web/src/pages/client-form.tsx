import {
  Button,
  Checkbox,
  Group,
  MultiSelect,
  Select,
  SimpleGrid,
  Stack,
  TagsInput,
  Textarea,
  TextInput,
} from '@mantine/core';
import { NumberInput } from '../components/number-input.js';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { localDigits } from '../format.js';
import { type Schemas } from '../api.js';
import { FormError, useFieldErrors } from '../components/form-errors.js';
import { useGroupNames, useGroups, useInterfaceOptions } from '../api/queries.js';
import { JalaliDateTimeInput } from '../components/jalali-picker.js';

const GB = 1024 ** 3;
const MBIT = 1_000_000;
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
  'rateBitsPerSec',
];

export interface ClientFormValues {
  name: string;
  note: string;
  groups: string[];
  telegramId: string;
  quotaGb: number | string;
  expiresAt: string;
  /**
   * At creation: "never expires" said explicitly (expiresAt: null), so a group's expiry days do
   * not apply; an empty expiry alone leaves it to the group (docs/groups.md).
   */
  neverExpires: boolean;
  deviceLimit: number | string;
  /** Mbit/s; empty: no speed limit (at creation: the group's). */
  speedMbit: number | string;
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
    // A new client's numbers start empty: left so, the API gives the group's default (or its own).
    quotaGb: client ? +(client.quotaBytes / GB).toFixed(3) : '',
    // datetime-local wants local time without zone
    expiresAt: client?.expiresAt ? toLocalInput(client.expiresAt) : '',
    neverExpires: false,
    deviceLimit: client?.deviceLimit ?? '',
    speedMbit: client?.rateBitsPerSec ? client.rateBitsPerSec / MBIT : '',
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

const blank = (value: number | string) => value === '' || value === undefined;

/**
 * The body fields both create and change take, from what the form holds (the API validates; its
 * message shows next to the field). At creation a field left empty is left out, so the API fills it
 * from the client's group (docs/groups.md) or its own default; an explicit 0 stays (unlimited). On
 * a change an emptied number means 0 (unlimited) and an emptied expiry means never.
 */
export function toBody(values: ClientFormValues, creating = false) {
  const telegram = values.telegramId.trim();
  const number = (value: number | string, unit: number) =>
    blank(value) ? (creating ? undefined : 0) : Math.round(Number(value) * unit);
  return {
    name: values.name.trim(),
    note: values.note,
    groups: values.groups,
    telegramId: telegram === '' ? null : Number(telegram),
    quotaBytes: number(values.quotaGb, GB),
    expiresAt: values.expiresAt
      ? new Date(values.expiresAt).toISOString()
      : creating && !values.neverExpires
        ? undefined
        : null,
    deviceLimit: number(values.deviceLimit, 1),
    rateBitsPerSec: number(values.speedMbit, MBIT),
    interfaceIds: creating && values.interfaceIds.length === 0 ? undefined : values.interfaceIds,
    resetCycle: values.resetCycle,
  };
}

type Group = NonNullable<ReturnType<typeof useGroups>['data']>[number];

/** The group whose defaults a new client takes: the first of its groups that is defined, as the API picks it. */
export function defaultsGroup(groups: Group[] | undefined, names: string[]): Group | undefined {
  return names.map((name) => groups?.find((group) => group.defined && group.name === name)).find(Boolean);
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
  // With one interface in the panel there is nothing to choose: a new client starts with it (once,
  // when the list arrives; clearing it afterwards stays cleared).
  const [preselected, setPreselected] = useState(false);
  const only = creating && interfaces.options.length === 1 ? interfaces.options[0]!.value : undefined;
  if (only && !preselected) {
    setPreselected(true);
    if (!values.interfaceIds.length) setValues((before) => ({ ...before, interfaceIds: [only] }));
  }
  const groups = useGroups();
  const groupNames = useGroupNames();
  // Only a creation takes group defaults; an edit shows and sends the client's own values.
  const group = creating ? defaultsGroup(groups.data, values.groups) : undefined;
  const errors = useFieldErrors(error, { ...values, quotaBytes: values.quotaGb, rateBitsPerSec: values.speedMbit });
  const fromGroup = group && t('clients.fromGroup', { group: group.name });
  // One wording for what 0 means in every limit (here, in batch create and in the group form); the
  // placeholder shows what an empty field gets (∞, or 1 device).
  const unlimited = t('clients.zeroUnlimited');
  const interfaceNames = (ids: string[]) =>
    ids.map((id) => interfaces.options.find((option) => option.value === id)?.label ?? id).join(', ');
  const groupExpires = Boolean(group && group.expiryDays > 0);
  const neverExpires = groupExpires && values.neverExpires;
  const expiryHint =
    group && groupExpires && !values.expiresAt && !neverExpires
      ? t('clients.groupExpiry', { group: group.name, count: group.expiryDays })
      : undefined;
  // Only where a group would give an expiry is "never" something to say (elsewhere empty is never).
  const never = groupExpires && group && (
    <Checkbox
      label={t('clients.neverExpires', { group: group.name })}
      checked={values.neverExpires}
      onChange={(event) => {
        const checked = event.currentTarget.checked;
        setValues((before) => ({ ...before, neverExpires: checked, expiresAt: checked ? '' : before.expiresAt }));
      }}
      data-testid="client-never-expires"
    />
  );
  // A date typed or picked is said instead of "never".
  const setExpiry = (value: string) =>
    setValues((before) => ({ ...before, expiresAt: value, neverExpires: value ? false : before.neverExpires }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit({ ...values, neverExpires });
  };
  const renew = (
    <Button
      size="compact-xs"
      variant="light"
      onClick={() =>
        setValues((before) => ({ ...before, neverExpires: false, expiresAt: renewed(before.expiresAt, 30) }))
      }
    >
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
        description={group?.interfaceIds.length ? t('clients.groupInterfaces', { group: group.name }) : undefined}
        placeholder={
          group?.interfaceIds.length && !values.interfaceIds.length ? interfaceNames(group.interfaceIds) : undefined
        }
        data-testid="client-interfaces"
      />
      <SimpleGrid cols={{ base: 1, xs: 2 }} style={{ alignItems: 'end' }}>
        <NumberInput
          label={t('clients.quotaGb')}
          description={fromGroup ? `${fromGroup} · ${unlimited}` : unlimited}
          placeholder={localDigits(
            group ? (group.quotaBytes ? String(+(group.quotaBytes / GB).toFixed(3)) : '∞') : '∞',
          )}
          min={0}
          decimalScale={3}
          value={values.quotaGb}
          onChange={(value) => set('quotaGb', value)}
          error={errors.of('quotaBytes')}
          data-testid="client-quota"
        />
        <NumberInput
          label={t('clients.deviceLimit')}
          description={fromGroup ? `${fromGroup} · ${unlimited}` : unlimited}
          placeholder={localDigits(group ? (group.deviceLimit ? String(group.deviceLimit) : '∞') : '1')}
          name="deviceLimit"
          min={0}
          value={values.deviceLimit}
          onChange={(value) => set('deviceLimit', value)}
          error={errors.of('deviceLimit')}
        />
      </SimpleGrid>
      <SimpleGrid cols={{ base: 1, xs: 2 }} style={{ alignItems: 'end' }}>
        {i18n.language === 'fa' ? (
          // The browser's own date picker knows only the Gregorian calendar.
          <JalaliDateTimeInput
            label={t('clients.expires')}
            value={values.expiresAt}
            onChange={setExpiry}
            error={errors.of('expiresAt')}
            description={expiryHint}
            rightSectionWidth={88}
            rightSection={renew}
          />
        ) : (
          <TextInput
            type="datetime-local"
            label={t('clients.expires')}
            name="expiresAt"
            value={values.expiresAt}
            onChange={(e) => setExpiry(e.currentTarget.value)}
            error={errors.of('expiresAt')}
            description={expiryHint}
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
      {never}
      <NumberInput
        label={t('clients.speed')}
        description={fromGroup ? `${fromGroup} · ${unlimited}` : unlimited}
        placeholder={localDigits(group?.rateBitsPerSec ? String(group.rateBitsPerSec / MBIT) : '∞')}
        min={0}
        decimalScale={3}
        value={values.speedMbit}
        onChange={(value) => set('speedMbit', value)}
        error={errors.of('rateBitsPerSec')}
        data-testid="client-speed"
      />
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
        description={creating ? t('clients.groupsHelp') : undefined}
        data={groupNames.data?.names ?? []}
        value={values.groups}
        data-testid="client-groups"
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
