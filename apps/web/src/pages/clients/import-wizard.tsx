import { Alert, Badge, Button, FileInput, Group, Select, Stack, Table, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, must, type Schemas } from '../../api.js';
import { queryKeys, useInterfaceOptions } from '../../api/queries.js';
import { Ltr } from '../../components/common.js';
import { FormError } from '../../components/form-errors.js';
import { Modal } from '../../components/layers.js';

type Result = Schemas['ImportResultDto'];
type Format = NonNullable<Parameters<typeof sendImport>[1]['format']>;
const FORMATS: Format[] = ['wg-easy-json', 'wg-easy-sqlite', 'w-ui', 'warren', 'warren-csv'];
const ACTION_COLORS = { create: 'green', update: 'blue', refuse: 'red' } as const;
/** Rows the preview table shows; the summary counts them all. */
const ROWS_SHOWN = 500;

function sendImport(file: File, query: { interfaceId: string; dryRun: 'true' | 'false'; format?: Result['format'] }) {
  return must(
    api.POST('/api/clients/import', {
      params: { query: query as never },
      body: file as never,
      bodySerializer: (body: unknown) => body as BodyInit,
      headers: { 'content-type': 'application/octet-stream' },
    }),
  ) as Promise<Result>;
}

/**
 * Import from a file (POST /api/clients/import): pick the file and the interface, see the preview
 * (every row: created, updated or refused with its reasons), then apply it, all rows or none.
 */
export default function ImportWizard({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const { options } = useInterfaceOptions();
  const [file, setFile] = useState<File | null>(null);
  const [interfaceId, setInterfaceId] = useState<string | null>(null);
  const [format, setFormat] = useState<string | null>(null);
  const query = (dryRun: boolean) => ({
    interfaceId: interfaceId!,
    dryRun: dryRun ? ('true' as const) : ('false' as const),
    ...(format ? { format: format as Format } : {}),
  });
  const preview = useMutation({ mutationFn: () => sendImport(file!, query(true)) });
  const apply = useMutation({
    mutationFn: () => sendImport(file!, query(false)),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: queryKeys.clients }),
  });
  const reset = () => {
    preview.reset();
    apply.reset();
  };
  const plan = preview.data;

  return (
    <Modal opened onClose={onClose} title={t('clientTransfer.importTitle')} size="xl">
      <Stack gap="sm">
        {apply.data ? (
          <>
            <Alert color="green" data-testid="import-done">
              {t('clientTransfer.imported', {
                created: apply.data.summary.created,
                updated: apply.data.summary.updated,
              })}
            </Alert>
            <Group justify="flex-end">
              <Button onClick={onClose} data-testid="import-close">
                {t('clientTransfer.close')}
              </Button>
            </Group>
          </>
        ) : !plan ? (
          <>
            <Text size="sm" c="dimmed">
              {t('clientTransfer.importHelp')}
            </Text>
            <FileInput
              label={t('clientTransfer.file')}
              value={file}
              onChange={(picked) => {
                setFile(picked);
                reset();
              }}
              clearable
              data-testid="import-file"
            />
            <Select
              label={t('clientTransfer.targetInterface')}
              data={options}
              value={interfaceId}
              onChange={setInterfaceId}
              data-testid="import-interface"
            />
            <Select
              label={t('clientTransfer.format')}
              placeholder={t('clientTransfer.formatAuto')}
              data={FORMATS.map((value) => ({ value, label: t(`clientTransfer.formats.${value}`) }))}
              value={format}
              onChange={setFormat}
              clearable
            />
            <FormError error={preview.error} />
            <Group justify="flex-end">
              <Button
                onClick={() => preview.mutate()}
                disabled={!file || !interfaceId}
                loading={preview.isPending}
                data-testid="import-preview"
              >
                {t('clientTransfer.preview')}
              </Button>
            </Group>
          </>
        ) : (
          <>
            <Group gap="xs" data-testid="import-summary">
              <Badge color="gray">{t(`clientTransfer.formats.${plan.format}`)}</Badge>
              <Badge color="green">{t('clientTransfer.toCreate', { count: plan.summary.created })}</Badge>
              <Badge color="blue">{t('clientTransfer.toUpdate', { count: plan.summary.updated })}</Badge>
              <Badge color="red">{t('clientTransfer.refused', { count: plan.summary.refused })}</Badge>
            </Group>
            {plan.warnings.map((warning) => (
              <Alert key={warning} color="yellow" variant="light">
                {warning}
              </Alert>
            ))}
            <Table.ScrollContainer minWidth={520} mah={360}>
              <Table striped data-testid="import-rows">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>#</Table.Th>
                    <Table.Th>{t('common.name')}</Table.Th>
                    <Table.Th>{t('clientTransfer.action')}</Table.Th>
                    <Table.Th>{t('clientTransfer.addresses')}</Table.Th>
                    <Table.Th>{t('clientTransfer.reasons')}</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {plan.rows.slice(0, ROWS_SHOWN).map((row) => (
                    <Table.Tr key={row.row} data-action={row.action}>
                      <Table.Td>{row.row}</Table.Td>
                      <Table.Td style={{ whiteSpace: 'nowrap' }}>
                        <Ltr>{row.name}</Ltr>
                      </Table.Td>
                      <Table.Td>
                        <Badge color={ACTION_COLORS[row.action]} variant="light">
                          {t(`clientTransfer.actions.${row.action}`)}
                        </Badge>
                      </Table.Td>
                      <Table.Td>
                        <Ltr>{row.addresses.join(', ')}</Ltr>
                      </Table.Td>
                      <Table.Td>
                        {row.errors.map((error) => (
                          <Text key={error.field + error.message} size="xs" c="red">
                            <Ltr>{error.field}</Ltr>: {error.message}
                          </Text>
                        ))}
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
            {plan.rows.length > ROWS_SHOWN && (
              <Text size="xs" c="dimmed">
                {t('clientTransfer.moreRows', { count: plan.rows.length - ROWS_SHOWN })}
              </Text>
            )}
            {plan.summary.refused > 0 && (
              <Alert color="red" variant="light" data-testid="import-blocked">
                {t('clientTransfer.fixRefused')}
              </Alert>
            )}
            <FormError error={apply.error} />
            <Group justify="space-between">
              <Button variant="default" onClick={reset} data-testid="import-back">
                {t('clientTransfer.back')}
              </Button>
              <Button
                onClick={() => apply.mutate()}
                disabled={plan.summary.refused > 0 || plan.summary.rows === 0}
                loading={apply.isPending}
                data-testid="import-apply"
              >
                {t('clientTransfer.apply', { count: plan.summary.created + plan.summary.updated })}
              </Button>
            </Group>
          </>
        )}
      </Stack>
    </Modal>
  );
}
