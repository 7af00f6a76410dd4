import { Accordion, Badge, Code, Group, Stack, Text, TextInput } from '@mantine/core';
import { IconSearch } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type Schemas } from '../api.js';
import { Copy, PageHeader } from '../components/common.js';
import { PageLoader } from '../components/page-loader.js';
import { panelUrl } from '../env.js';
import { useDocs } from '../api/queries.js';

const METHOD_COLORS: Record<string, string> = {
  GET: 'blue',
  POST: 'green',
  PUT: 'orange',
  PATCH: 'yellow',
  DELETE: 'red',
};

/**
 * The API page, built from GET /api/docs (the same table that registers the routes): every
 * endpoint, grouped, with its summary, example body and a curl command. The command carries the
 * address this page was reached on and a token placeholder ($WARREN_TOKEN).
 */
export default function ApiDocsPage() {
  const { t } = useTranslation();
  const [filter, setFilter] = useState('');
  const docs = useDocs();
  if (!docs.data) return <PageLoader />;
  const needle = filter.trim().toLowerCase();
  const groups = docs.data.groups
    .map((group) => ({
      ...group,
      endpoints: group.endpoints.filter(
        (e) => !needle || `${e.method} ${e.path} ${e.summary}`.toLowerCase().includes(needle),
      ),
    }))
    .filter((group) => group.endpoints.length > 0);
  return (
    <>
      <PageHeader title={t('nav.api')} />
      <Stack gap="xs" mb="md">
        <Text size="sm">{t('apiDocs.intro')}</Text>
        <Group gap="xs">
          <Text size="sm" c="dimmed">
            {t('apiDocs.auth')}
          </Text>
          <Code dir="ltr">{docs.data.auth}</Code>
        </Group>
        <Code block dir="ltr">
          export WARREN_TOKEN=wrn_…
        </Code>
        <TextInput
          leftSection={<IconSearch size={16} />}
          placeholder={t('common.search')}
          value={filter}
          onChange={(e) => setFilter(e.currentTarget.value)}
          aria-label={t('common.search')}
        />
      </Stack>
      <Accordion multiple variant="separated" defaultValue={groups.map((group) => group.name)}>
        {groups.map((group) => (
          <Accordion.Item key={group.name} value={group.name}>
            <Accordion.Control>
              <Text fw={600} tt="capitalize">
                {group.name}
              </Text>
            </Accordion.Control>
            <Accordion.Panel>
              <Stack gap="md">
                {group.endpoints.map((endpoint) => (
                  <Endpoint key={`${endpoint.method} ${endpoint.path}`} endpoint={endpoint} />
                ))}
              </Stack>
            </Accordion.Panel>
          </Accordion.Item>
        ))}
      </Accordion>
    </>
  );
}

/** The curl command with the address the panel was reached on (the listing's own may name another, e.g. behind a proxy). */
function curlFor(endpoint: Schemas['DocsEndpointDto'], baseUrl: string): string {
  return baseUrl === panelUrl ? endpoint.curl : endpoint.curl.split(baseUrl).join(panelUrl);
}

function Endpoint({ endpoint }: { endpoint: Schemas['DocsEndpointDto'] }) {
  const { t, i18n } = useTranslation();
  const docs = useDocs();
  const curl = curlFor(endpoint, docs.data?.baseUrl ?? panelUrl);
  const query = Object.entries(endpoint.query);
  return (
    <Stack gap={6} data-testid="endpoint" data-route={`${endpoint.method} ${endpoint.path}`}>
      <Group gap="xs" wrap="nowrap">
        <Badge color={METHOD_COLORS[endpoint.method]} variant="light" w={70}>
          {endpoint.method}
        </Badge>
        <Code dir="ltr" style={{ wordBreak: 'break-all' }}>
          {endpoint.path}
        </Code>
        {!endpoint.auth && (
          <Badge variant="outline" size="xs">
            {t('apiDocs.public')}
          </Badge>
        )}
      </Group>
      {/* The API's own text, in English: left to right on a Persian page too. */}
      <Text size="sm" dir="ltr">
        {endpoint.summary}
      </Text>
      {endpoint.roles.length > 0 && (
        <Text size="xs" c="dimmed">
          {t('apiDocs.roles')}:{' '}
          {endpoint.roles
            .map((role) => t(`roles.${role}`, { defaultValue: role }))
            .join(i18n.language === 'fa' ? '، ' : ', ')}
        </Text>
      )}
      {query.length > 0 && (
        <Text size="xs" c="dimmed">
          {t('apiDocs.query')}:{' '}
          {query.map(([name, description]) => `${name}${description ? ` (${String(description)})` : ''}`).join('; ')}
        </Text>
      )}
      {endpoint.example !== null && (
        <>
          <Text size="xs" c="dimmed">
            {t('apiDocs.example')}
          </Text>
          <Code block dir="ltr">
            {JSON.stringify(endpoint.example, null, 2)}
          </Code>
        </>
      )}
      <Group gap="xs" align="flex-start" wrap="nowrap">
        <Code block style={{ flex: 1, whiteSpace: 'pre-wrap', wordBreak: 'break-all' }} data-testid="curl" dir="ltr">
          {curl}
        </Code>
        <Copy value={curl} />
      </Group>
    </Stack>
  );
}
