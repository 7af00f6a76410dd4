import {
  Alert,
  Button,
  Group,
  MultiSelect,
  NumberInput,
  Progress,
  SimpleGrid,
  Stack,
  TagsInput,
  Text,
  TextInput,
} from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { localDigits } from '../../format.js';
import { api, must, type Schemas } from '../../api.js';
import { queryKeys, useGroupNames, useGroups, useInterfaceOptions } from '../../api/queries.js';
import { defaultsGroup } from '../client-form.js';
import { Ltr } from '../../components/common.js';
import { FormError, useFieldErrors } from '../../components/form-errors.js';
import { Modal } from '../../components/layers.js';

const GB = 1024 ** 3;
const FIELDS = [
  'namePrefix',
  'count',
  'start',
  'digits',
  'interfaceIds',
  'quotaBytes',
  'expiresAt',
  'deviceLimit',
  'devicesEach',
  'groups',
];

/** The name the batch's n-th client gets, as the API makes it. */
const nameOf = (prefix: string, n: number, digits: number) => `${prefix}${String(n).padStart(digits, '0')}`;

/**
 * Many clients from one description (POST /api/clients/batch): one request, all or none. While it
 * runs a bar moves on the expected time (about 1,000 clients a second); the answer shows what was made.
 */
export default function BatchCreateModal({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const { options } = useInterfaceOptions();
  const groups = useGroups();
  const groupNames = useGroupNames();
  const [values, setValues] = useState({
    namePrefix: '',
    count: 10 as number | string,
    start: 1 as number | string,
    digits: 0 as number | string,
    interfaceIds: [] as string[],
    // Empty numbers are left out: the API fills them from the group (or its own defaults).
    quotaGb: '' as number | string,
    expiresAt: '',
    deviceLimit: '' as number | string,
    devicesEach: 1 as number | string,
    groups: [] as string[],
  });
  const set = (change: Partial<typeof values>) => setValues((before) => ({ ...before, ...change }));
  const body: Schemas['BatchCreateClientsDto'] = {
    namePrefix: values.namePrefix,
    count: Number(values.count),
    start: Number(values.start),
    digits: Number(values.digits),
    ...(values.interfaceIds.length ? { interfaceIds: values.interfaceIds } : {}),
    ...(values.quotaGb === '' ? {} : { quotaBytes: Math.round(Number(values.quotaGb) * GB) }),
    ...(values.expiresAt ? { expiresAt: new Date(values.expiresAt).toISOString() } : {}),
    ...(values.deviceLimit === '' ? {} : { deviceLimit: Number(values.deviceLimit) }),
    devicesEach: Number(values.devicesEach),
    ...(values.groups.length ? { groups: values.groups } : {}),
  };
  const create = useMutation({
    mutationFn: () => must(api.POST('/api/clients/batch', { body })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: queryKeys.clients }),
  });
  const errors = useFieldErrors(create.error, { ...body, expiresAt: values.expiresAt });
  const group = defaultsGroup(groups.data, values.groups);
  const fromGroup = group && t('clients.fromGroup', { group: group.name });
  const unlimited = t('clients.zeroUnlimited');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const digits = Number(values.digits) || 0;
  const first = Number(values.start) || 0;
  const count = Number(values.count) || 0;
  const done: Schemas['ClientBatchResultDto'] | undefined = create.data;

  return (
    <Modal opened onClose={onClose} title={t('clientTransfer.batchTitle')} size="lg">
      {done ? (
        <Stack gap="sm" data-testid="batch-result">
          <Alert color="green">
            {t('clientTransfer.batchDone', { count: done.created })} <Ltr>{done.first}</Ltr> … <Ltr>{done.last}</Ltr>
          </Alert>
          <Group justify="flex-end">
            <Button onClick={onClose} data-testid="batch-close">
              {t('clientTransfer.close')}
            </Button>
          </Group>
        </Stack>
      ) : (
        <Stack component="form" onSubmit={submit} gap="sm">
          <SimpleGrid cols={{ base: 1, sm: 2 }} style={{ alignItems: 'end' }}>
            <TextInput
              label={t('clientTransfer.namePrefix')}
              value={values.namePrefix}
              onChange={(event) => set({ namePrefix: event.currentTarget.value })}
              error={errors.of('namePrefix')}
              required
              dir="auto"
              data-testid="batch-prefix"
            />
            <NumberInput
              label={t('clientTransfer.count')}
              value={values.count}
              onChange={(count) => set({ count })}
              min={1}
              max={10000}
              error={errors.of('count')}
              data-testid="batch-count"
            />
            <NumberInput
              label={t('clientTransfer.start')}
              value={values.start}
              onChange={(start) => set({ start })}
              min={0}
              error={errors.of('start')}
            />
            <NumberInput
              label={t('clientTransfer.digits')}
              value={values.digits}
              onChange={(digits) => set({ digits })}
              min={0}
              max={9}
              error={errors.of('digits')}
            />
          </SimpleGrid>
          {values.namePrefix && count > 0 && (
            <Text size="sm" c="dimmed" data-testid="batch-names">
              {t('clientTransfer.names')} <Ltr>{nameOf(values.namePrefix, first, digits)}</Ltr> …{' '}
              <Ltr>{nameOf(values.namePrefix, first + count - 1, digits)}</Ltr>
            </Text>
          )}
          <MultiSelect
            label={t('clients.interfaces')}
            data={options}
            value={values.interfaceIds}
            onChange={(interfaceIds) => set({ interfaceIds })}
            error={errors.of('interfaceIds')}
            required={!group?.interfaceIds.length}
            description={group?.interfaceIds.length ? t('clients.groupInterfaces', { group: group.name }) : undefined}
            data-testid="batch-interfaces"
          />
          <SimpleGrid cols={{ base: 1, sm: 2 }} style={{ alignItems: 'end' }}>
            <NumberInput
              label={t('clients.quotaGb')}
              description={fromGroup ? `${fromGroup} · ${unlimited}` : unlimited}
              placeholder={localDigits(group?.quotaBytes ? String(+(group.quotaBytes / GB).toFixed(3)) : '∞')}
              value={values.quotaGb}
              onChange={(quotaGb) => set({ quotaGb })}
              min={0}
              decimalScale={3}
              error={errors.of('quotaBytes')}
            />
            <TextInput
              type="datetime-local"
              label={t('clients.expires')}
              value={values.expiresAt}
              onChange={(event) => set({ expiresAt: event.currentTarget.value })}
              error={errors.of('expiresAt')}
              description={
                group && group.expiryDays > 0 && !values.expiresAt
                  ? t('clients.groupExpiry', { group: group.name, count: group.expiryDays })
                  : undefined
              }
            />
            <NumberInput
              label={t('clients.deviceLimit')}
              description={fromGroup ? `${fromGroup} · ${unlimited}` : unlimited}
              placeholder={localDigits(group ? (group.deviceLimit ? String(group.deviceLimit) : '∞') : '1')}
              value={values.deviceLimit}
              onChange={(deviceLimit) => set({ deviceLimit })}
              min={0}
              max={50}
              error={errors.of('deviceLimit')}
            />
            <NumberInput
              label={t('clientTransfer.devicesEach')}
              value={values.devicesEach}
              onChange={(devicesEach) => set({ devicesEach })}
              min={1}
              max={50}
              error={errors.of('devicesEach')}
            />
          </SimpleGrid>
          <TagsInput
            label={t('clients.groups')}
            data={groupNames.data?.names ?? []}
            data-testid="batch-groups"
            value={values.groups}
            onChange={(groups) => set({ groups })}
            error={errors.of('groups')}
          />
          {create.isPending && <Running count={count} />}
          <FormError error={create.error} fields={FIELDS} />
          <Group justify="flex-end">
            <Button type="submit" loading={create.isPending} data-testid="batch-submit">
              {t('clientTransfer.createCount', { count })}
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}

/** A bar on the expected time of a batch (one request: the panel reports no steps), never full before the answer. */
function Running({ count }: { count: number }) {
  const { t } = useTranslation();
  const [elapsed, setElapsed] = useState(0);
  useEffect(() => {
    const started = Date.now();
    const timer = setInterval(() => setElapsed(Date.now() - started), 200);
    return () => clearInterval(timer);
  }, []);
  const expectedMs = Math.max(1000, count);
  const percent = Math.min(95, (100 * elapsed) / expectedMs);
  return (
    <Stack gap={4} data-testid="batch-progress">
      <Progress value={percent} animated />
      <Text size="xs" c="dimmed">
        {t('clientTransfer.creating', { count, seconds: Math.round(elapsed / 1000) })}
      </Text>
    </Stack>
  );
}
