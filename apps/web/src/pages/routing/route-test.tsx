import {
  Alert,
  Badge,
  Button,
  Card,
  Group,
  NumberInput,
  Select,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, must, type Schemas } from '../../api.js';
import { FormError, useFieldErrors } from '../../components/form-errors.js';
import { ClientPicker } from '../../components/rule-pickers.js';
import { localDigits } from '../../format.js';
import type { Rule } from './types.js';

export type RouteTestResult = Schemas['RouteTestResultDto'];
const PROTOCOLS = ['tcp', 'udp', 'icmp'] as const;

/**
 * "Test a route" (POST /api/routing/test): from a client or a tunnel address to an address or
 * domain; the answer names the outbound and the rule that decided (highlighted in the list
 * through `onResult`), as the node's agent would route it.
 */
export function RouteTest({
  nodeId,
  rules,
  onResult,
}: {
  nodeId: string;
  rules: Rule[];
  onResult: (result: RouteTestResult | null) => void;
}) {
  const { t } = useTranslation();
  const [clientId, setClientId] = useState<string | null>(null);
  const [source, setSource] = useState('');
  const [destination, setDestination] = useState('');
  const [port, setPort] = useState<number | string>(443);
  const [protocol, setProtocol] = useState<(typeof PROTOCOLS)[number]>('tcp');
  const body = {
    nodeId,
    ...(clientId ? { clientId } : { source: source.trim() }),
    destination: destination.trim(),
    protocol,
    ...(protocol !== 'icmp' && typeof port === 'number' ? { port } : {}),
  };
  const test = useMutation({
    mutationFn: () => must(api.POST('/api/routing/test', { body })),
    onSuccess: onResult,
    onError: () => onResult(null),
  });
  const errors = useFieldErrors(test.error, body);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    test.mutate();
  };
  const result = test.data;
  return (
    <Card withBorder component="form" onSubmit={submit} data-testid="route-test">
      <Stack gap="sm">
        <Text fw={500}>{t('routing.test.title')}</Text>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <ClientPicker
            label={t('routing.test.client')}
            value={clientId ? [clientId] : []}
            onChange={(ids) => setClientId(ids.at(-1) ?? null)}
            error={errors.of('clientId')}
          />
          <TextInput
            label={t('routing.test.source')}
            placeholder="10.8.0.2"
            value={source}
            onChange={(e) => setSource(e.currentTarget.value)}
            disabled={clientId !== null}
            error={errors.of('source')}
            data-testid="route-test-source"
          />
          <TextInput
            label={t('routing.test.destination')}
            placeholder="example.com"
            required
            value={destination}
            onChange={(e) => setDestination(e.currentTarget.value)}
            error={errors.of('destination')}
            data-testid="route-test-destination"
          />
          <Group grow align="flex-start">
            <Select
              label={t('routing.network')}
              data={PROTOCOLS.map((value) => ({ value, label: value.toUpperCase() }))}
              value={protocol}
              onChange={(value) => value && setProtocol(value as (typeof PROTOCOLS)[number])}
              allowDeselect={false}
              error={errors.of('protocol')}
            />
            <NumberInput
              label={t('routing.lists.ports')}
              min={1}
              max={65535}
              value={port}
              onChange={setPort}
              disabled={protocol === 'icmp'}
              error={errors.of('port')}
              data-testid="route-test-port"
            />
          </Group>
        </SimpleGrid>
        <FormError error={test.error} fields={['clientId', 'source', 'destination', 'protocol', 'port']} />
        <Group justify="flex-end">
          <Button type="submit" variant="default" loading={test.isPending} data-testid="route-test-run">
            {t('routing.test.run')}
          </Button>
        </Group>
        {result && <RouteAnswer result={result} rules={rules} />}
      </Stack>
    </Card>
  );
}

function RouteAnswer({ result, rules }: { result: RouteTestResult; rules: Rule[] }) {
  const { t } = useTranslation();
  const outbound = result.outbound ?? t('routing.test.resolver');
  return (
    <Alert
      color={result.outbound === 'blocked' ? 'red' : 'teal'}
      variant="light"
      data-testid="route-test-answer"
      data-outbound={result.outbound ?? ''}
      data-rule={result.rule?.id ?? ''}
    >
      <Stack gap={4}>
        <Group gap="xs">
          <Text size="sm">{t('routing.test.carriedBy')}</Text>
          <Badge variant="filled">{outbound}</Badge>
        </Group>
        <Text size="sm">
          {result.rule
            ? t('routing.test.byRule', {
                name: result.rule.name,
                position: localDigits(rules.findIndex((rule) => rule.id === result.rule?.id) + 1),
              })
            : t(`routing.test.steps.${result.step}`)}
          {result.matched.length > 0 &&
            ` (${result.matched.map((criterion) => t(`routing.test.criteria.${criterion}`, { defaultValue: criterion })).join(', ')})`}
        </Text>
        <Text size="xs" c="dimmed">
          {t('routing.test.from', { address: result.source.address, interface: result.source.interface })}
          {result.destination.resolved &&
            ` · ${t('routing.test.resolved', { domain: result.destination.domain, addresses: result.destination.resolved.join(', ') })}`}
        </Text>
        {result.notes.map((note) => (
          <Text size="xs" c="dimmed" key={note}>
            {note}
          </Text>
        ))}
      </Stack>
    </Alert>
  );
}
