import { Select, SimpleGrid, Switch, TagsInput, Text, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, must } from '../../api.js';
import { useFieldErrors } from '../../components/form-errors.js';
import { FormModal } from '../../components/form-modal.js';
import { ClientPicker, InterfacePicker } from '../../components/rule-pickers.js';
import { LISTS, TEXT_LISTS, type Rule } from './types.js';

type RuleValues = { name: string; outboundTag: string; network: Rule['network']; enabled: boolean } & Record<
  (typeof LISTS)[number],
  string[]
>;

/** The form's starting values: the rule's, or a new rule's defaults. */
function ruleValues(rule?: Rule): RuleValues {
  return {
    name: rule?.name ?? '',
    outboundTag: rule?.outboundTag ?? 'direct',
    network: rule?.network ?? null,
    enabled: rule?.enabled ?? true,
    ...Object.fromEntries(LISTS.map((list) => [list, rule?.[list] ?? []])),
  } as RuleValues;
}

export function RuleModal({
  nodeId,
  rule,
  tags,
  onClose,
  onSaved,
}: {
  nodeId: string;
  rule?: Rule;
  tags: string[];
  onClose: () => void;
  onSaved: () => void;
}) {
  const { t } = useTranslation();
  const [values, setValues] = useState(() => ruleValues(rule));
  const save = useMutation({
    mutationFn: () => {
      const body = { ...values, name: values.name.trim() };
      return rule
        ? must(api.PATCH('/api/routing/rules/{id}', { params: { path: { id: rule.id } }, body }))
        : must(api.POST('/api/routing/rules', { params: { query: { nodeId } }, body }));
    },
    onSuccess: () => {
      onSaved();
      onClose();
    },
  });
  const errors = useFieldErrors(save.error, values);
  return (
    <FormModal
      title={rule ? rule.name : t('routing.newRule')}
      onClose={onClose}
      save={save}
      fields={['name', 'outboundTag', 'network', 'enabled', ...LISTS]}
      editing={Boolean(rule)}
      size="lg"
      submitTestId="rule-submit"
    >
      <SimpleGrid cols={{ base: 1, sm: 3 }}>
        <TextInput
          label={t('common.name')}
          value={values.name}
          onChange={(e) => setValues({ ...values, name: e.currentTarget.value })}
          error={errors.of('name')}
        />
        <Select
          label={t('routing.outbound')}
          data={tags}
          value={values.outboundTag}
          onChange={(tag) => tag && setValues({ ...values, outboundTag: tag })}
          error={errors.of('outboundTag')}
        />
        <Select
          label={t('routing.network')}
          data={[
            { value: '', label: t('routing.anyNetwork') },
            ...['tcp', 'udp', 'icmp'].map((value) => ({ value, label: value })),
          ]}
          value={values.network ?? ''}
          onChange={(value) => setValues({ ...values, network: (value || null) as Rule['network'] })}
          error={errors.of('network')}
        />
      </SimpleGrid>
      <Text size="xs" c="dimmed">
        {t('routing.allMustMatch')}
      </Text>
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        {TEXT_LISTS.map((list) => (
          <TagsInput
            key={list}
            label={t(`routing.lists.${list}`)}
            value={values[list]}
            onChange={(value) => setValues({ ...values, [list]: value })}
            error={errors.of(list)}
          />
        ))}
        <ClientPicker
          label={t('routing.lists.clients')}
          value={values.clients}
          onChange={(value) => setValues({ ...values, clients: value })}
          error={errors.of('clients')}
        />
        <InterfacePicker
          nodeId={nodeId}
          label={t('routing.lists.interfaces')}
          value={values.interfaces}
          onChange={(value) => setValues({ ...values, interfaces: value })}
          error={errors.of('interfaces')}
        />
      </SimpleGrid>
      <Switch
        label={t('interfaces.enabled')}
        checked={values.enabled}
        onChange={(e) => setValues({ ...values, enabled: e.currentTarget.checked })}
      />
    </FormModal>
  );
}
