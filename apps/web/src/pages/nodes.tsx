import { Button } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, must } from '../api.js';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '../components/common.js';
import { useCanManage, useUser } from '../session.js';
import { EnrolmentModal } from './nodes/enrolment-modal.js';
import { NodeModal } from './nodes/node-modal.js';
import { NodesTable } from './nodes/nodes-table.js';
import { ProbeModal } from './nodes/probe-modal.js';
import { TokensArea } from './nodes/tokens-area.js';
import { UpdateAgentModal } from './nodes/update-modal.js';
import type { Enrolment, Node } from './nodes/types.js';

/** Nodes (tunnel hosts) with their agent and sync state, enrolment commands, and the API tokens area. */
export default function NodesPage() {
  const { t } = useTranslation();
  const canManage = useCanManage();
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<Node | null>(null);
  const [enrolment, setEnrolment] = useState<Enrolment | null>(null);
  const [probing, setProbing] = useState<Node | null>(null);
  const [updating, setUpdating] = useState<Node | null>(null);
  const isOwner = useUser().role === 'owner';
  // The panel's version, to offer "Update agent" where a node's agent differs (the owner only).
  const meta = useQuery({
    queryKey: ['meta'],
    queryFn: () => must(api.GET('/api/meta')),
    staleTime: Infinity,
    enabled: isOwner,
  });
  return (
    <>
      <PageHeader title={t('nav.nodes')}>
        {canManage && (
          <Button leftSection={<IconPlus size={16} />} onClick={() => setAdding(true)} data-testid="new-node">
            {t('nodes.new')}
          </Button>
        )}
      </PageHeader>
      <NodesTable
        onEdit={canManage ? setEditing : undefined}
        onEnrolment={setEnrolment}
        onProbe={setProbing}
        onUpdate={isOwner ? setUpdating : undefined}
        panelVersion={meta.data?.version}
      />
      {adding && (
        <NodeModal
          onClose={() => setAdding(false)}
          onCreated={(name, answer) => setEnrolment({ name, enrolment: answer })}
        />
      )}
      {editing && <NodeModal node={editing} onClose={() => setEditing(null)} onCreated={() => undefined} />}
      {probing && <ProbeModal node={probing} onClose={() => setProbing(null)} />}
      {updating && meta.data && (
        <UpdateAgentModal node={updating} panelVersion={meta.data.version} onClose={() => setUpdating(null)} />
      )}
      {enrolment && <EnrolmentModal enrolment={enrolment} onClose={() => setEnrolment(null)} />}
      <TokensArea />
    </>
  );
}
