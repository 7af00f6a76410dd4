import { Button } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '../components/common.js';
import { useCanManage } from '../session.js';
import { EnrolmentModal } from './nodes/enrolment-modal.js';
import { NodeModal } from './nodes/node-modal.js';
import { NodesTable } from './nodes/nodes-table.js';
import { ProbeModal } from './nodes/probe-modal.js';
import { TokensArea } from './nodes/tokens-area.js';
import type { Enrolment, Node } from './nodes/types.js';

/** Nodes (tunnel hosts) with their agent and sync state, enrolment commands, and the API tokens area. */
export default function NodesPage() {
  const { t } = useTranslation();
  const canManage = useCanManage();
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<Node | null>(null);
  const [enrolment, setEnrolment] = useState<Enrolment | null>(null);
  const [probing, setProbing] = useState<Node | null>(null);
  return (
    <>
      <PageHeader title={t('nav.nodes')}>
        {canManage && (
          <Button leftSection={<IconPlus size={16} />} onClick={() => setAdding(true)} data-testid="new-node">
            {t('nodes.new')}
          </Button>
        )}
      </PageHeader>
      <NodesTable onEdit={canManage ? setEditing : undefined} onEnrolment={setEnrolment} onProbe={setProbing} />
      {adding && (
        <NodeModal
          onClose={() => setAdding(false)}
          onCreated={(name, answer) => setEnrolment({ name, enrolment: answer })}
        />
      )}
      {editing && <NodeModal node={editing} onClose={() => setEditing(null)} onCreated={() => undefined} />}
      {probing && <ProbeModal node={probing} onClose={() => setProbing(null)} />}
      {enrolment && <EnrolmentModal enrolment={enrolment} onClose={() => setEnrolment(null)} />}
      <TokensArea />
    </>
  );
}
