import { Alert, Group, Select, Switch, TagsInput, Text, TextInput } from '@mantine/core';
import { NumberInput } from '../../components/number-input.js';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, must, type Schemas } from '../../api.js';
import { useFieldErrors } from '../../components/form-errors.js';
import { FormModal } from '../../components/form-modal.js';
import { isOfflineAgent } from '../../components/node-health.js';
import { queryKeys, useNodes } from '../../api/queries.js';
import { awgBody, endpointFor, FIELDS, interfaceValues, isLoopback, type InterfaceValues } from './interface-values.js';
import { AwgFields } from './awg-fields.js';

type Interface = Schemas['InterfaceDto'];

/** Saves the form: a change to `entry`, or a new interface (on the chosen node, else the local one). */
function useSaveInterface(entry: Interface | undefined, values: InterfaceValues, onClose: () => void) {
  const amnezia = (entry?.mode ?? values.mode) === 'amnezia';
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => {
      const body = {
        name: values.name.trim(),
        listenPort: Number(values.listenPort),
        subnet: values.subnet.trim(),
        endpointHost: values.endpointHost.trim(),
        mtu: Number(values.mtu),
        dns: values.dns,
        enabled: values.enabled,
        natInterface: values.natInterface.trim() || null,
        ...(amnezia ? { awg: awgBody(values.awg) } : {}),
      };
      return entry
        ? must(api.PATCH('/api/interfaces/{id}', { params: { path: { id: entry.id } }, body }))
        : must(
            api.POST('/api/interfaces', {
              body: {
                ...body,
                mode: values.mode as 'standard' | 'amnezia',
                ...(values.nodeId ? { nodeId: values.nodeId } : {}),
              },
            }),
          );
    },
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.interfaces });
      onClose();
    },
  });
}

export function InterfaceModal({ entry, onClose }: { entry?: Interface; onClose: () => void }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const nodes = useNodes({ enabled: !entry });
  // A new interface's endpoint is its node's address until one is typed.
  const [endpointTyped, setEndpointTyped] = useState(Boolean(entry));
  // The list this dialog was opened from: a new interface is offered a port and subnet none uses.
  const taken = queryClient.getQueryData<Interface[]>(queryKeys.interfaces) ?? [];
  const [typed, setValues] = useState(() => interfaceValues(entry, taken));
  const values = endpointTyped ? typed : { ...typed, endpointHost: endpointFor(nodes.data, typed.nodeId) };
  const set = (key: keyof typeof values, value: unknown) => setValues((before) => ({ ...before, [key]: value }));
  const save = useSaveInterface(entry, values, onClose);
  const amnezia = (entry?.mode ?? values.mode) === 'amnezia';
  // Each AmneziaWG input by the API's name for it (awg.jc...), so changing one clears its error alone.
  const { awg, ...others } = values;
  const awgInputs = Object.fromEntries(Object.entries(awg).map(([field, value]) => [`awg.${field}`, value]));
  const errors = useFieldErrors(save.error, { ...others, ...awgInputs });
  // The chosen node (none chosen: the local one): said beforehand when nothing will apply there.
  const node = entry
    ? undefined
    : nodes.data?.find((candidate) => (values.nodeId ? candidate.id === values.nodeId : candidate.isLocal));
  const nodeWarning =
    node?.agent.state === 'unmanaged'
      ? t('health.createOnUnmanaged')
      : node && isOfflineAgent(node.agent.state)
        ? t('health.createOnOffline')
        : null;
  return (
    <FormModal
      title={entry ? entry.name : t('interfaces.new')}
      onClose={onClose}
      save={save}
      fields={FIELDS}
      editing={Boolean(entry)}
      size="lg"
      submitTestId="interface-submit"
      footer={
        entry && (
          <Text size="xs" c="dimmed">
            {t('interfaces.subnetNote')}
          </Text>
        )
      }
    >
      <Group grow align="flex-end">
        <TextInput
          label={t('common.name')}
          name="name"
          value={values.name}
          onChange={(e) => set('name', e.currentTarget.value)}
          error={errors.of('name')}
        />
        {!entry && (
          <Select
            label={t('interfaces.mode')}
            data={(['standard', 'amnezia'] as const).map((mode) => ({
              value: mode,
              label: t(`interfaces.modes.${mode}`),
            }))}
            value={values.mode}
            onChange={(value) => set('mode', value)}
            error={errors.of('mode')}
          />
        )}
      </Group>
      {!entry && (
        <Select
          label={t('interfaces.node')}
          placeholder={t('interfaces.localNode')}
          data={(nodes.data ?? []).map((node) => ({ value: node.id, label: node.name }))}
          value={values.nodeId || null}
          onChange={(value) => set('nodeId', value ?? '')}
          clearable
          error={errors.of('nodeId')}
        />
      )}
      {nodeWarning && (
        <Alert color="orange" data-testid="interface-node-warning">
          {nodeWarning}
        </Alert>
      )}
      <Group grow align="flex-end">
        <TextInput
          label={t('interfaces.endpointHost')}
          name="endpointHost"
          value={values.endpointHost}
          onChange={(e) => {
            setEndpointTyped(true);
            set('endpointHost', e.currentTarget.value);
          }}
          // The default is the address the panel was reached on: 127.0.0.1 on a trial is unreachable elsewhere.
          description={
            isLoopback(values.endpointHost) ? (
              <Text span size="xs" c="orange" data-testid="endpoint-loopback">
                {t('interfaces.endpointLoopback')}
              </Text>
            ) : undefined
          }
          error={errors.of('endpointHost')}
        />
        <NumberInput
          label={t('interfaces.listenPort')}
          name="listenPort"
          value={values.listenPort}
          onChange={(value) => set('listenPort', value)}
          error={errors.of('listenPort')}
        />
      </Group>
      <Group grow align="flex-end">
        <TextInput
          label={t('interfaces.subnet')}
          name="subnet"
          value={values.subnet}
          onChange={(e) => set('subnet', e.currentTarget.value)}
          error={errors.of('subnet')}
        />
        <NumberInput
          label="MTU"
          name="mtu"
          value={values.mtu}
          onChange={(value) => set('mtu', value)}
          error={errors.of('mtu')}
        />
      </Group>
      <TagsInput label="DNS" value={values.dns} onChange={(value) => set('dns', value)} error={errors.of('dns')} />
      <TextInput
        label={t('interfaces.natInterface')}
        description={t('interfaces.natHelp')}
        placeholder="eth0"
        name="natInterface"
        value={values.natInterface}
        onChange={(e) => set('natInterface', e.currentTarget.value)}
        error={errors.of('natInterface')}
      />
      {amnezia && (
        <AwgFields awg={values.awg} onChange={(awg) => set('awg', awg)} errors={errors} editing={Boolean(entry)} />
      )}
      <Switch
        label={t('interfaces.enabled')}
        checked={values.enabled}
        onChange={(e) => set('enabled', e.currentTarget.checked)}
      />
    </FormModal>
  );
}
