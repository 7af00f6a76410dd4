import {
  Alert,
  Button,
  Code,
  FileButton,
  Group,
  ScrollArea,
  SegmentedControl,
  Stack,
  Table,
  Text,
} from '@mantine/core';
import { IconDownload, IconFileImport } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, must, saveFile, type Schemas } from '../api.js';
import { PageHeader } from '../components/common.js';
import { FormError } from '../components/form-errors.js';
import { PageLoader } from '../components/page-loader.js';
import { previewOf } from './template-preview.js';
import { useCanManage } from '../session.js';
import { queryKeys } from '../api/queries.js';
import { localDigits } from '../format.js';
import { Modal } from '../components/layers.js';
import { PreviewProblems } from './template/preview-problems.js';
import { SecretsNotice } from './template/secrets-notice.js';
import { templateText } from './template/secrets.js';

type Import = Schemas['TemplateImportDto'];
const SECTIONS = ['nodes', 'interfaces', 'hosts', 'outbounds', 'routing', 'settings'] as const;
type Section = (typeof SECTIONS)[number];

/** The configuration as a template: one section or all of it, downloadable; an import shows what it will do first, then what it did. */
export default function TemplatePage() {
  const { t } = useTranslation();
  const canManage = useCanManage();
  const queryClient = useQueryClient();
  const [section, setSection] = useState<Section | 'all'>('all');
  const [file, setFile] = useState<{ id: number; name: string; body: Import } | null>(null);
  const [parseError, setParseError] = useState<string | null>(null);
  const [revealed, setRevealed] = useState(false);
  const view = useQuery({
    queryKey: queryKeys.template(section),
    queryFn: () => must(api.GET('/api/template', { params: { query: section === 'all' ? {} : { section } } })),
  });
  const preview = useQuery({
    queryKey: ['template-preview', file?.id],
    queryFn: async () => previewOf(file!.body, await must(api.GET('/api/template'))),
    enabled: Boolean(file),
    staleTime: Infinity,
  });
  const importing = useMutation({
    mutationFn: (body: Import) => must(api.PUT('/api/template', { body })),
    onSuccess: () => void queryClient.invalidateQueries(),
  });
  const open = async (chosen: File | null) => {
    if (!chosen) return;
    importing.reset();
    setParseError(null);
    try {
      const body = JSON.parse(await chosen.text()) as unknown;
      if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new Error(t('template.notObject'));
      setFile({ id: Date.now(), name: chosen.name, body: body as Import });
    } catch (error) {
      setParseError(`${chosen.name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  // The download and "Copy with secrets" take everything; the view masks the secrets until revealed.
  const text = view.data ? JSON.stringify(view.data, null, 2) : '';
  const shown = templateText(view.data, revealed);
  return (
    <>
      <PageHeader title={t('nav.template')}>
        <Button
          variant="default"
          leftSection={<IconDownload size={16} />}
          disabled={!view.data}
          onClick={() =>
            saveFile(
              new Blob([text], { type: 'application/json' }),
              `warren-template${section === 'all' ? '' : `-${section}`}.json`,
            )
          }
        >
          {t('common.download')}
        </Button>
        {canManage && (
          <FileButton onChange={(chosen) => void open(chosen)} accept="application/json,.json">
            {(props) => (
              <Button {...props} leftSection={<IconFileImport size={16} />} data-testid="import-template">
                {t('template.import')}
              </Button>
            )}
          </FileButton>
        )}
      </PageHeader>
      {/* Seven tabs are wider than a phone: they scroll inside their own box, never the page. */}
      <ScrollArea type="auto" scrollbarSize={6} offsetScrollbars="x" mb="md">
        <SegmentedControl
          data={[
            { value: 'all', label: t('template.all') },
            ...SECTIONS.map((value) => ({ value, label: t(`template.sections.${value}`) })),
          ]}
          value={section}
          onChange={(value) => setSection(value as Section | 'all')}
          data-testid="template-section"
        />
      </ScrollArea>
      {parseError && (
        <Alert color="red" mb="md">
          {parseError}
        </Alert>
      )}
      {!view.data ? (
        <PageLoader />
      ) : (
        <>
          <SecretsNotice secrets={shown.secrets} revealed={revealed} onReveal={setRevealed} fullText={text} />
          <Code block data-testid="template-view" dir="ltr" style={{ maxHeight: '65vh', overflow: 'auto' }}>
            {shown.text}
          </Code>
        </>
      )}
      {file && (
        <Modal opened onClose={() => setFile(null)} title={t('template.importOf', { name: file.name })} size="lg">
          {importing.data ? (
            <ImportResult result={importing.data} />
          ) : preview.error ? (
            <FormError error={preview.error} />
          ) : !preview.data ? (
            <PageLoader />
          ) : (
            <Stack>
              <Text size="sm">{t('template.previewHelp')}</Text>
              <Table data-testid="import-preview">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>{t('template.section')}</Table.Th>
                    <Table.Th>{t('template.willCreate')}</Table.Th>
                    <Table.Th>{t('template.willUpdate')}</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {preview.data.rows.map((row) => (
                    <Table.Tr key={row.section} data-section={row.section}>
                      <Table.Td>{t(`template.sections.${row.section}`)}</Table.Td>
                      <Table.Td>{localDigits(row.create)}</Table.Td>
                      <Table.Td>{localDigits(row.update)}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
              <PreviewProblems problems={preview.data.problems} />
              {preview.data.skippedRules > 0 && (
                <Text size="sm" c="orange" data-testid="preview-skipped">
                  {t('template.willSkipRules', { count: preview.data.skippedRules })}
                </Text>
              )}
              <FormError error={importing.error} />
              <Group justify="flex-end">
                <Button variant="default" onClick={() => setFile(null)}>
                  {t('common.cancel')}
                </Button>
                <Button
                  onClick={() => importing.mutate(file.body)}
                  loading={importing.isPending}
                  disabled={preview.data.problems.length > 0}
                  data-testid="confirm-import"
                >
                  {t('template.import')}
                </Button>
              </Group>
            </Stack>
          )}
        </Modal>
      )}
    </>
  );
}

function ImportResult({ result }: { result: Schemas['TemplateImportResultDto'] }) {
  const { t } = useTranslation();
  const sections = Object.keys(result.created) as (keyof typeof result.created)[];
  return (
    <Stack data-testid="import-result">
      <Table>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('template.section')}</Table.Th>
            <Table.Th>{t('template.created')}</Table.Th>
            <Table.Th>{t('template.updated')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {sections.map((section) => (
            <Table.Tr key={section} data-section={section}>
              <Table.Td>{t(`template.sections.${section}`)}</Table.Td>
              <Table.Td>{localDigits(result.created[section])}</Table.Td>
              <Table.Td>{localDigits(result.updated[section])}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Text size="sm" fw={500}>
        {t('template.skipped', { count: result.skipped.length })}
      </Text>
      {result.skipped.map((skip) => (
        <Text key={skip.path} size="xs" c="dimmed">
          <Code dir="ltr">{skip.path}</Code> {skip.reason}
        </Text>
      ))}
    </Stack>
  );
}
