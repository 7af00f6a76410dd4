import { Button } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Schemas } from '../api.js';
import { PageHeader } from '../components/common.js';
import { useCanManage } from '../session.js';
import { useInterfacesWithNodes } from '../api/queries.js';
import { InterfaceModal } from './interfaces/interface-modal.js';
import { InterfacesTable } from './interfaces/interfaces-table.js';

type Interface = Schemas['InterfaceDto'];

export default function InterfacesPage() {
  const { t } = useTranslation();
  const canManage = useCanManage();
  const [editing, setEditing] = useState<Interface | 'new' | null>(null);
  const interfaces = useInterfacesWithNodes();
  return (
    <>
      <PageHeader title={t('nav.interfaces')}>
        {canManage && (
          <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing('new')} data-testid="new-interface">
            {t('interfaces.new')}
          </Button>
        )}
      </PageHeader>
      <InterfacesTable rows={interfaces.data} onEdit={canManage ? setEditing : undefined} />
      {editing && <InterfaceModal entry={editing === 'new' ? undefined : editing} onClose={() => setEditing(null)} />}
    </>
  );
}
