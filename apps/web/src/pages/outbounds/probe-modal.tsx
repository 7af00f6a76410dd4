import { Badge, Group, Stack, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Ltr } from '../../components/common.js';
import { Modal } from '../../components/layers.js';
import { STAGES, type Outbound, type Probe } from './types.js';

/** The probe's answer: reachable or not, the error's class, and how long each stage took. */
export function ProbeModal({ outbound, result, onClose }: { outbound: Outbound; result: Probe; onClose: () => void }) {
  const { t } = useTranslation();
  const total = STAGES.reduce((sum, stage) => sum + (result.stages[stage] ?? 0), 0) || 1;
  return (
    <Modal opened onClose={onClose} title={t('outbounds.checkOf', { tag: outbound.tag })} centered>
      <Stack data-testid="probe-result">
        <Group>
          <Badge color={result.ok ? 'green' : 'red'} size="lg" data-testid="probe-ok">
            {result.ok ? t('outbounds.reachable') : t('outbounds.unreachable')}
          </Badge>
          {result.latencyMs !== null && <Text>{t('common.ms', { value: Math.round(result.latencyMs) })}</Text>}
          {result.egressIp && (
            <Text size="sm" c="dimmed">
              {t('outbounds.egress')}: <Ltr>{result.egressIp}</Ltr>
            </Text>
          )}
        </Group>
        {!result.ok && (
          <Text c="red" size="sm">
            {result.errorClass && (
              <b>{t(`outbounds.errorClass.${result.errorClass}`, { defaultValue: result.errorClass })}: </b>
            )}
            {result.error}
          </Text>
        )}
        <Table>
          <Table.Tbody>
            {STAGES.map((stage) => (
              <Table.Tr key={stage} data-testid="probe-stage">
                <Table.Td w="35%">{t(`outbounds.stage.${stage}`)}</Table.Td>
                <Table.Td>
                  {result.stages[stage] === null ? (
                    <Text c="dimmed" size="sm">
                      —
                    </Text>
                  ) : (
                    <Group gap="xs" wrap="nowrap">
                      <div
                        style={{
                          height: 8,
                          borderRadius: 4,
                          background: 'var(--mantine-color-teal-5)',
                          width: `${Math.max(2, (100 * result.stages[stage]!) / total)}%`,
                        }}
                      />
                      <Text size="sm">{t('common.ms', { value: Math.round(result.stages[stage]!) })}</Text>
                    </Group>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Stack>
    </Modal>
  );
}
