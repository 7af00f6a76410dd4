import {
  Alert,
  Badge,
  Button,
  Fieldset,
  Group,
  MultiSelect,
  PasswordInput,
  Select,
  Switch,
  Text,
  TextInput,
} from '@mantine/core';
import { NumberInput } from '../components/number-input.js';
import { IconPlus } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { USER_ROLES, type UserRole } from '../../../../libs/contracts/user-roles.js';
import { api, must, type Schemas } from '../api.js';
import { queryKeys as keys, useInterfaceOptions, useNodes } from '../api/queries.js';
import {
  ConfirmButton,
  EditAndDelete,
  formatBytes,
  formatDate,
  Ltr,
  notifyFailure,
  PageHeader,
} from '../components/common.js';
import { useFieldErrors } from '../components/form-errors.js';
import { FormModal } from '../components/form-modal.js';
import { ListTable } from '../components/list-table.js';
import { useUser } from '../session.js';

type Operator = Schemas['AdminDto'];

/**
 * Operators (owner only, W-UI's /api/admins): the panel's users. Create with a temporary
 * password, change role or disable, set another temporary password, delete after typing the
 * name. The API refuses what the rules forbid (one's own role, the last owner) and the refusal
 * shows under the field it names.
 */
export default function OperatorsPage() {
  const { t, i18n } = useTranslation();
  const user = useUser();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<Operator | 'new' | null>(null);
  const owner = user.role === 'owner';
  const operators = useQuery({
    queryKey: keys.operators,
    queryFn: () => must(api.GET('/api/admins')),
    enabled: owner,
  });
  const remove = useMutation({
    mutationFn: (id: string) => must(api.DELETE('/api/admins/{id}', { params: { path: { id } } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: keys.operators }),
    onError: notifyFailure,
  });
  const resetPool = useMutation({
    mutationFn: (id: string) => must(api.POST('/api/admins/{id}/reset-usage', { params: { path: { id } } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: keys.operators }),
    onError: notifyFailure,
  });
  if (!owner)
    return (
      <>
        <PageHeader title={t('nav.operators')} />
        <Alert color="gray">{t('operators.ownerOnly')}</Alert>
      </>
    );
  return (
    <>
      <PageHeader title={t('nav.operators')}>
        <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing('new')} data-testid="new-operator">
          {t('operators.new')}
        </Button>
      </PageHeader>
      <ListTable
        rows={operators.data}
        cards
        testId="operators-table"
        rowKey={(operator) => operator.id}
        minWidth={720}
        rowProps={(operator) => ({ 'data-testid': `operator-${operator.username}` })}
        columns={[
          {
            header: t('operators.username'),
            naming: true,
            cell: (operator) => (
              <>
                <bdi>{operator.username}</bdi>
                {operator.id === user.id && (
                  <Text span size="xs" c="dimmed">
                    {' '}
                    {t('operators.you')}
                  </Text>
                )}
              </>
            ),
          },
          { header: t('operators.role'), cell: (operator) => t(`roles.${operator.role}`) },
          {
            header: t('operators.state'),
            cell: (operator) => (
              <Group gap={4}>
                <Badge color={operator.enabled ? 'teal' : 'gray'} variant="light">
                  {operator.enabled ? t('operators.enabled') : t('operators.disabled')}
                </Badge>
                {operator.mustChangePassword && (
                  <Badge color="yellow" variant="light">
                    {t('operators.temporaryPassword')}
                  </Badge>
                )}
              </Group>
            ),
          },
          {
            header: t('operators.sessions'),
            cell: (operator) =>
              t('operators.sessionCount', {
                count: operator.sessions,
                n: new Intl.NumberFormat(i18n.language).format(operator.sessions),
              }),
          },
          {
            header: t('operators.pool'),
            cell: (operator) =>
              operator.reseller && (
                <Text span size="sm" data-testid={`pool-${operator.username}`}>
                  <Ltr>
                    {t('operators.poolUse', {
                      used: formatBytes(operator.reseller.poolUsedBytes),
                      total: formatBytes(operator.reseller.trafficPoolBytes),
                    })}
                  </Ltr>
                </Text>
              ),
          },
          {
            header: t('operators.lastSeen'),
            cell: (operator) =>
              operator.lastSeenAt ? formatDate(operator.lastSeenAt, i18n.language) : t('operators.never'),
          },
        ]}
        actions={(operator) =>
          operator.id !== user.id && (
            <>
              {operator.reseller && (
                <ConfirmButton
                  size="xs"
                  variant="default"
                  message={t('operators.resetPoolConfirm', { name: operator.username })}
                  onConfirm={() => resetPool.mutate(operator.id)}
                  data-testid={`reset-pool-${operator.username}`}
                >
                  {t('operators.resetPool')}
                </ConfirmButton>
              )}
              <EditAndDelete
                onEdit={() => setEditing(operator)}
                confirmMessage={t('operators.confirmDelete', { name: operator.username })}
                typeToConfirm={operator.username}
                onDelete={() => remove.mutate(operator.id)}
              />
            </>
          )
        }
      />
      {editing && <OperatorModal operator={editing === 'new' ? undefined : editing} onClose={() => setEditing(null)} />}
    </>
  );
}

/** Create (username, temporary password, role) or edit (role, enabled, and a new temporary password if typed). */
function OperatorModal({ operator, onClose }: { operator?: Operator; onClose: () => void }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [values, setValues] = useState({
    username: operator?.username ?? '',
    password: '',
    role: (operator?.role ?? 'viewer') as UserRole,
    enabled: operator?.enabled ?? true,
    ...ceilingValues(operator?.reseller ?? null),
  });
  const set = <K extends keyof typeof values>(key: K, value: (typeof values)[K]) =>
    setValues((before) => ({ ...before, [key]: value }));
  const save = useMutation({
    mutationFn: () => {
      if (!operator)
        return must(
          api.POST('/api/admins', {
            body: {
              username: values.username.trim(),
              password: values.password,
              role: values.role,
              enabled: values.enabled,
              ...(values.role === 'reseller' ? { limits: limitsOf(values) } : {}),
            },
          }),
        );
      const body: Schemas['UpdateAdminDto'] = {};
      if (values.username.trim() !== operator.username) body.username = values.username.trim();
      if (values.role !== operator.role) body.role = values.role;
      if (values.enabled !== operator.enabled) body.enabled = values.enabled;
      if (values.password) body.password = values.password;
      if (values.role === 'reseller') body.limits = limitsOf(values);
      return must(api.PATCH('/api/admins/{id}', { params: { path: { id: operator.id } }, body }));
    },
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: keys.operators });
      onClose();
    },
  });
  const errors = useFieldErrors(save.error, values);
  const interfaces = useInterfaceOptions();
  const nodes = useNodes();
  return (
    <FormModal
      title={operator ? operator.username : t('operators.new')}
      onClose={onClose}
      save={save}
      fields={['username', 'password', 'role', 'enabled', 'limits']}
      editing={Boolean(operator)}
      submitTestId="save-operator"
    >
      <TextInput
        label={t('operators.username')}
        value={values.username}
        onChange={(e) => set('username', e.currentTarget.value)}
        error={errors.of('username')}
        autoComplete="off"
        data-testid="operator-username"
      />
      <Select
        label={t('operators.role')}
        data={USER_ROLES.map((role) => ({ value: role, label: t(`roles.${role}`) }))}
        value={values.role}
        onChange={(value) => value && set('role', value as UserRole)}
        allowDeselect={false}
        error={errors.of('role')}
        data-testid="operator-role"
      />
      <PasswordInput
        label={operator ? t('operators.newTemporaryPassword') : t('operators.temporaryPasswordLabel')}
        description={t('operators.temporaryPasswordHint')}
        value={values.password}
        onChange={(e) => set('password', e.currentTarget.value)}
        error={errors.of('password')}
        autoComplete="new-password"
        data-testid="operator-password"
      />
      <Switch
        label={t('operators.enabledLabel')}
        description={t('operators.enabledHint')}
        checked={values.enabled}
        onChange={(e) => set('enabled', e.currentTarget.checked)}
        data-testid="operator-enabled"
      />
      {values.role === 'reseller' && (
        <Fieldset legend={t('operators.ceilings')} data-testid="operator-ceilings">
          <Text size="xs" c="dimmed" mb="xs">
            {t('operators.ceilingsHint')}
          </Text>
          <NumberInput
            label={t('operators.maxClients')}
            value={values.maxClients}
            onChange={(value) => set('maxClients', value)}
            min={0}
            allowDecimal={false}
            error={errors.of('limits.maxClients')}
            data-testid="ceiling-max-clients"
          />
          <NumberInput
            label={t('operators.trafficPoolGb')}
            value={values.trafficPoolGb}
            onChange={(value) => set('trafficPoolGb', value)}
            min={0}
            error={errors.of('limits.trafficPoolBytes')}
            data-testid="ceiling-pool"
          />
          <NumberInput
            label={t('operators.maxExpiryDays')}
            value={values.maxExpiryDays}
            onChange={(value) => set('maxExpiryDays', value)}
            min={1}
            allowDecimal={false}
            error={errors.of('limits.maxExpiryDays')}
            data-testid="ceiling-expiry"
          />
          <NumberInput
            label={t('operators.maxQuotaGb')}
            value={values.maxQuotaGb}
            onChange={(value) => set('maxQuotaGb', value)}
            min={0}
            error={errors.of('limits.maxQuotaBytes')}
            data-testid="ceiling-quota"
          />
          <MultiSelect
            label={t('operators.allowedInterfaces')}
            data={interfaces.options}
            value={values.interfaceIds}
            onChange={(value) => set('interfaceIds', value)}
            error={errors.of('limits.interfaceIds')}
            data-testid="ceiling-interfaces"
          />
          <MultiSelect
            label={t('operators.allowedNodes')}
            data={(nodes.data ?? []).map((node) => ({ value: node.id, label: node.name }))}
            value={values.nodeIds}
            onChange={(value) => set('nodeIds', value)}
            error={errors.of('limits.nodeIds')}
            data-testid="ceiling-nodes"
          />
        </Fieldset>
      )}
    </FormModal>
  );
}

const GB = 1024 ** 3; // GiB, as the labels say

/** The form's ceiling fields from a reseller's (sizes in GiB; empty: no ceiling). */
function ceilingValues(reseller: Operator['reseller']) {
  const gb = (bytes: number | null | undefined): number | string => (bytes ? bytes / GB : '');
  return {
    maxClients: (reseller?.maxClients ?? '') as number | string,
    trafficPoolGb: gb(reseller?.trafficPoolBytes),
    maxExpiryDays: (reseller?.maxExpiryDays ?? '') as number | string,
    maxQuotaGb: gb(reseller?.maxQuotaBytes),
    interfaceIds: reseller?.interfaceIds ?? ([] as string[]),
    nodeIds: reseller?.nodeIds ?? ([] as string[]),
  };
}

/** The API's ceilings from the form: an empty field is no ceiling (null), none chosen: any interface or node. */
function limitsOf(values: ReturnType<typeof ceilingValues>): Schemas['ResellerLimitsDto'] {
  const whole = (value: number | string) => (value === '' ? null : Math.round(Number(value)));
  const bytes = (value: number | string) => (value === '' ? null : Math.round(Number(value) * GB));
  return {
    maxClients: whole(values.maxClients),
    trafficPoolBytes: bytes(values.trafficPoolGb),
    maxExpiryDays: whole(values.maxExpiryDays),
    maxQuotaBytes: bytes(values.maxQuotaGb),
    interfaceIds: values.interfaceIds.length > 0 ? values.interfaceIds : null,
    nodeIds: values.nodeIds.length > 0 ? values.nodeIds : null,
  };
}
