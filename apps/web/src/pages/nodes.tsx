import { Alert, Button, Code, Group, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconKey, IconPlus } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, must, type Schemas } from '../api.js';
import {
  ConfirmButton,
  Copy,
  EditAndDelete,
  formatDate,
  Ltr,
  notifyFailure,
  PageHeader,
} from '../components/common.js';
import { FormError, useFieldErrors } from '../components/form-errors.js';
import { FormModal } from '../components/form-modal.js';
import { ListTable } from '../components/list-table.js';
import { useCanManage } from '../session.js';
import { AgentBadge, StateBadge, SyncBadge } from '../components/badges.js';
import { queryKeys, useNodes, useTokens } from '../api/queries.js';

type Node = Schemas['NodeDto'];
type Enrolment = { name: string; enrolment: Schemas['EnrolmentDto'] };
import { Modal } from '../components/layers.js';

/** Nodes (tunnel hosts) with their agent and sync state, enrolment commands, and the API tokens area. */
export default function NodesPage() {
  const { t } = useTranslation();
  const canManage = useCanManage();
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<Node | null>(null);
  const [enrolment, setEnrolment] = useState<Enrolment | null>(null);
  return (
    <>
      <PageHeader title={t('nav.nodes')}>
        {canManage && (
          <Button leftSection={<IconPlus size={16} />} onClick={() => setAdding(true)} data-testid="new-node">
            {t('nodes.new')}
          </Button>
        )}
      </PageHeader>
      <NodesTable onEdit={canManage ? setEditing : undefined} onEnrolment={setEnrolment} />
      {adding && (
        <NodeModal
          onClose={() => setAdding(false)}
          onCreated={(name, answer) => setEnrolment({ name, enrolment: answer })}
        />
      )}
      {editing && <NodeModal node={editing} onClose={() => setEditing(null)} onCreated={() => undefined} />}
      {enrolment && <EnrolmentModal enrolment={enrolment} onClose={() => setEnrolment(null)} />}
      <TokensArea />
    </>
  );
}

/** Every node, its agent and sync state asked again every 5 s; on a phone a card each. */
function NodesTable({
  onEdit,
  onEnrolment,
}: {
  /** Absent for people who may not change nodes: no buttons then. */
  onEdit?: (node: Node) => void;
  onEnrolment: (enrolment: Enrolment) => void;
}) {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const nodes = useNodes({ refetchInterval: 5000 });
  const reissue = useMutation({
    mutationFn: (node: Node) =>
      must(api.POST('/api/nodes/{id}/enrolment', { params: { path: { id: node.id } } })).then((answer) => ({
        name: node.name,
        enrolment: answer,
      })),
    onSuccess: onEnrolment,
    onError: notifyFailure,
  });
  const remove = useMutation({
    mutationFn: ({ id, force }: { id: string; force: boolean }) =>
      must(api.DELETE('/api/nodes/{id}', { params: { path: { id }, query: force ? { force: 'true' as const } : {} } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: queryKeys.nodes }),
    onError: notifyFailure,
  });
  return (
    <ListTable
      rows={nodes.data}
      cards
      rowKey={(node) => node.id}
      minWidth={640}
      testId="nodes-table"
      rowProps={(node) => ({ 'data-row': node.name })}
      columns={[
        {
          header: t('common.name'),
          naming: true,
          cell: (node) => (
            <>
              {node.name}{' '}
              {node.isLocal && (
                <StateBadge variant="outline" size="xs">
                  {t('nodes.local')}
                </StateBadge>
              )}
            </>
          ),
        },
        { header: t('nodes.address'), cell: (node) => <Ltr>{node.address}</Ltr> },
        {
          header: t('nodes.agent'),
          cell: (node) => (
            <>
              <AgentBadge state={node.agent.state} />
              {node.agent.lastSeenAt && (
                <Text size="xs" c="dimmed">
                  {formatDate(node.agent.lastSeenAt, i18n.language)}
                </Text>
              )}
            </>
          ),
        },
        {
          header: t('nodes.sync'),
          cell: (node) => (
            <>
              <SyncBadge inSync={node.inSync} unmanaged={node.agent.state === 'unmanaged'} />
              <Text size="xs" c="dimmed">
                <Ltr>
                  {node.appliedRevision} / {node.desiredRevision}
                </Ltr>
              </Text>
            </>
          ),
        },
        { header: t('nodes.interfaces'), cell: (node) => node.interfaceCount },
      ]}
      actions={
        onEdit &&
        ((node) =>
          // The local node: enrolled by the panel itself, and deletable only while unmanaged.
          node.isLocal && node.agent.state !== 'unmanaged' ? (
            <Button size="xs" variant="default" onClick={() => onEdit(node)}>
              {t('common.edit')}
            </Button>
          ) : (
            <>
              {!node.isLocal && (
                <Button size="xs" variant="default" onClick={() => reissue.mutate(node)}>
                  {t('nodes.enrolment')}
                </Button>
              )}
              <EditAndDelete
                onEdit={() => onEdit(node)}
                confirmMessage={t('nodes.confirmDelete', { name: node.name })}
                onDelete={() => remove.mutate({ id: node.id, force: node.interfaceCount > 0 })}
              />
            </>
          ))
      }
    />
  );
}

/** A node's enrolment command, with a copy button and when it expires. */
function EnrolmentModal({ enrolment, onClose }: { enrolment: Enrolment; onClose: () => void }) {
  const { t, i18n } = useTranslation();
  return (
    <Modal opened onClose={onClose} title={t('nodes.enrolCommand', { name: enrolment.name })} size="lg">
      <Stack>
        <Text size="sm">
          {t('nodes.enrolHelp', { expires: formatDate(enrolment.enrolment.expiresAt, i18n.language) })}
        </Text>
        <Code block dir="ltr" data-testid="enrol-command">
          {enrolment.enrolment.command}
        </Code>
        <Group justify="flex-end">
          <Copy value={enrolment.enrolment.command} label={t('common.copy')} />
        </Group>
      </Stack>
    </Modal>
  );
}

/** Adds a node (its enrolment command follows), or changes one's name, address or note. */
function NodeModal({
  node,
  onClose,
  onCreated,
}: {
  node?: Schemas['NodeDto'];
  onClose: () => void;
  onCreated: (name: string, enrolment: Schemas['EnrolmentDto']) => void;
}) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [values, setValues] = useState({
    name: node?.name ?? '',
    address: node?.address ?? '',
    note: node?.note ?? '',
  });
  const create = useMutation({
    mutationFn: async () => {
      const body = { name: values.name.trim(), address: values.address.trim(), note: values.note };
      if (node) {
        await must(api.PATCH('/api/nodes/{id}', { params: { path: { id: node.id } }, body }));
        return undefined;
      }
      return must(api.POST('/api/nodes', { body }));
    },
    onSuccess: (created) => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.nodes });
      onClose();
      if (created?.enrolment) onCreated(created.name, created.enrolment as Schemas['EnrolmentDto']);
      else if (created?.enrolmentError) notifications.show({ message: created.enrolmentError, color: 'orange' });
    },
  });
  const errors = useFieldErrors(create.error, values);
  return (
    <FormModal
      title={node ? node.name : t('nodes.new')}
      onClose={onClose}
      save={create}
      fields={['name', 'address', 'note']}
      editing={Boolean(node)}
    >
      <TextInput
        label={t('common.name')}
        value={values.name}
        onChange={(e) => setValues({ ...values, name: e.currentTarget.value })}
        error={errors.of('name')}
      />
      <TextInput
        label={t('nodes.address')}
        value={values.address}
        onChange={(e) => setValues({ ...values, address: e.currentTarget.value })}
        error={errors.of('address')}
      />
      <TextInput
        label={t('nodes.note')}
        value={values.note}
        onChange={(e) => setValues({ ...values, note: e.currentTarget.value })}
        error={errors.of('note')}
      />
    </FormModal>
  );
}

/** API tokens: issue (the value is shown once, with a copy button), disable, delete. */
function TokensArea() {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [issued, setIssued] = useState<Schemas['IssuedTokenDto'] | null>(null);
  const tokens = useTokens();
  const refresh = () => void queryClient.invalidateQueries({ queryKey: queryKeys.tokens });
  const issue = useMutation({
    mutationFn: () => must(api.POST('/api/tokens', { body: { name: name.trim() } })),
    onSuccess: (token) => {
      setIssued(token);
      setName('');
      refresh();
    },
  });
  const toggle = useMutation({
    mutationFn: ({ id, enabled }: { id: string; enabled: boolean }) =>
      must(api.PATCH('/api/tokens/{id}', { params: { path: { id } }, body: { enabled } })),
    onSuccess: refresh,
    onError: notifyFailure,
  });
  const remove = useMutation({
    mutationFn: (id: string) => must(api.DELETE('/api/tokens/{id}', { params: { path: { id } } })),
    onSuccess: refresh,
    onError: notifyFailure,
  });
  const issueErrors = useFieldErrors(issue.error, { name });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    issue.mutate();
  };
  return (
    <Stack mt="xl" gap="sm" data-testid="tokens-area">
      <Title order={3}>
        <IconKey size={20} style={{ verticalAlign: 'middle' }} /> {t('tokens.title')}
      </Title>
      <Group component="form" onSubmit={submit} align="flex-start" gap="xs">
        <TextInput
          placeholder={t('tokens.name')}
          aria-label={t('tokens.name')}
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          error={issueErrors.of('name')}
          style={{ flex: '1 1 200px' }}
          data-testid="token-name"
        />
        <Button type="submit" loading={issue.isPending} data-testid="issue-token">
          {t('tokens.issue')}
        </Button>
      </Group>
      <FormError error={issue.error} fields={['name']} />
      {issued && (
        <Alert
          color="teal"
          title={t('tokens.issuedTitle', { name: issued.name })}
          withCloseButton
          onClose={() => setIssued(null)}
        >
          <Text size="sm" mb="xs">
            {t('tokens.shownOnce')}
          </Text>
          <Group gap="xs" wrap="nowrap">
            <Code dir="ltr" style={{ wordBreak: 'break-all' }} data-testid="issued-token">
              {issued.token}
            </Code>
            <Copy value={issued.token} />
          </Group>
        </Alert>
      )}
      <ListTable
        rows={tokens.data}
        empty={t('tokens.empty')}
        rowKey={(token) => token.id}
        minWidth={560}
        columns={[
          { header: t('common.name'), cell: (token) => token.name },
          { header: t('tokens.hint'), cell: (token) => <Code dir="ltr">{token.hint}</Code> },
          { header: t('tokens.owner'), cell: (token) => token.owner },
          { header: t('tokens.lastUsed'), cell: (token) => formatDate(token.lastUsedAt, i18n.language) },
          {
            header: t('tokens.enabled'),
            cell: (token) => (
              <Switch
                checked={token.enabled}
                onChange={(e) => toggle.mutate({ id: token.id, enabled: e.currentTarget.checked })}
                aria-label={t('tokens.enabled')}
              />
            ),
          },
        ]}
        actions={(token) => (
          <ConfirmButton
            message={t('tokens.confirmDelete', { name: token.name })}
            onConfirm={() => remove.mutate(token.id)}
          >
            {t('common.delete')}
          </ConfirmButton>
        )}
      />
    </Stack>
  );
}
