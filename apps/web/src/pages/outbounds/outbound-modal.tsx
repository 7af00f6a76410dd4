import { Select, SimpleGrid, Switch, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, must } from '../../api.js';
import { useFieldErrors } from '../../components/form-errors.js';
import { FormModal } from '../../components/form-modal.js';
import { ProxyFields, WireguardFields } from './outbound-fields.js';
import { FIELDS, kindBody, outboundValues, valuesFromParsed } from './outbound-values.js';
import { ShareLinkInput } from './share-link-input.js';
import { KINDS, type Outbound } from './types.js';

export function OutboundModal({
  nodeId,
  outbound,
  onClose,
  onSaved,
}: {
  nodeId: string;
  outbound?: Outbound;
  onClose: () => void;
  onSaved: () => void;
}) {
  const { t } = useTranslation();
  const [values, setValues] = useState(() => outboundValues(outbound));
  const set = (key: keyof typeof values, value: unknown) => setValues((before) => ({ ...before, [key]: value }));
  const save = useMutation({
    mutationFn: () => {
      const common = {
        tag: values.tag.trim(),
        address: values.address.trim(),
        note: values.note,
        enabled: values.enabled,
      };
      const byKind = kindBody(values, outbound);
      return outbound
        ? must(
            api.PATCH('/api/outbounds/{id}', { params: { path: { id: outbound.id } }, body: { ...common, ...byKind } }),
          )
        : must(api.POST('/api/outbounds', { body: { nodeId, kind: values.kind, ...common, ...byKind } }));
    },
    onSuccess: () => {
      onSaved();
      onClose();
    },
  });
  const errors = useFieldErrors(save.error, values);
  return (
    <FormModal
      title={outbound ? outbound.tag : t('outbounds.new')}
      onClose={onClose}
      save={save}
      fields={FIELDS}
      editing={Boolean(outbound)}
      size="lg"
      submitTestId="outbound-submit"
    >
      {!outbound && (
        <ShareLinkInput onParsed={(parsed) => setValues((before) => valuesFromParsed(before, parsed.outbound))} />
      )}
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <TextInput
          label={t('outbounds.tag')}
          description={t('outbounds.tagHelp')}
          value={values.tag}
          onChange={(e) => set('tag', e.currentTarget.value)}
          error={errors.of('tag')}
        />
        <Select
          label={t('outbounds.kind')}
          data={KINDS.map((kind) => ({ value: kind, label: t(`outbounds.kinds.${kind}`) }))}
          value={values.kind}
          onChange={(kind) => kind && set('kind', kind)}
          disabled={Boolean(outbound)}
          error={errors.of('kind')}
        />
      </SimpleGrid>
      <TextInput
        label={t('outbounds.address')}
        placeholder="203.0.113.7:1080"
        value={values.address}
        onChange={(e) => set('address', e.currentTarget.value)}
        error={errors.of('address')}
      />
      <ProxyFields values={values} set={set} errors={errors} outbound={outbound} />
      {values.kind === 'wireguard' && <WireguardFields values={values} set={set} errors={errors} outbound={outbound} />}
      <TextInput
        label={t('nodes.note')}
        value={values.note}
        onChange={(e) => set('note', e.currentTarget.value)}
        error={errors.of('note')}
      />
      <Switch
        label={t('interfaces.enabled')}
        checked={values.enabled}
        onChange={(e) => set('enabled', e.currentTarget.checked)}
      />
    </FormModal>
  );
}
