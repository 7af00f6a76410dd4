import { Divider, Stack, Text } from '@mantine/core';
import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { messageOf } from '../api.js';
import { PageLoader } from '../components/page-loader.js';
import { useCanManage } from '../session.js';
import { ClientForm, initialValues, toBody } from './client-form.js';
import { useClient, useInterfaceChoices } from '../api/queries.js';
import { Drawer } from '../components/layers.js';
import { ClientSummary } from './client-drawer/client-summary.js';
import { Devices } from './client-drawer/devices.js';
import { SubscriptionLink } from './client-drawer/subscription-link.js';
import { useClientMutations } from './client-drawer/use-client-mutations.js';
import { UsageChart } from '../components/usage-chart.js';

const ConfigsModal = lazy(() => import('./client-configs.js'));

/** One client: its state, the form to change it, its devices and their configs. */
export default function ClientDrawer({ id, onClose }: { id: string; onClose: () => void }) {
  const { t, i18n } = useTranslation();
  const canManage = useCanManage();
  const [editing, setEditing] = useState(false);
  const [configs, setConfigs] = useState(false);
  const client = useClient(id);
  const interfaceList = useInterfaceChoices().data;
  const interfaces = interfaceList && new Map(interfaceList.map((entry) => [entry.id, entry]));
  const { refresh, update, toggle, reset, rotate, remove } = useClientMutations(id, {
    onSaved: () => setEditing(false),
    onDeleted: onClose,
  });
  const data = client.data;
  return (
    <Drawer
      opened
      onClose={onClose}
      position={i18n.dir() === 'rtl' ? 'left' : 'right'}
      size="lg"
      title={data?.name ?? t('nav.clients')}
    >
      {!data ? (
        client.error ? (
          <Text c="red">{messageOf(client.error)}</Text>
        ) : (
          <PageLoader />
        )
      ) : editing ? (
        <ClientForm
          initial={initialValues(data)}
          error={update.error}
          pending={update.isPending}
          submitLabel={t('common.save')}
          onSubmit={(values) => update.mutate(toBody(values))}
        />
      ) : (
        <Stack>
          <ClientSummary
            data={data}
            interfaces={interfaces}
            canManage={canManage}
            onToggle={(enabled) => toggle.mutate(enabled)}
            onConfigs={() => setConfigs(true)}
            onEdit={() => setEditing(true)}
            onReset={() => reset.mutate()}
            onRotate={() => rotate.mutate()}
            onDelete={() => remove.mutate()}
          />
          <Divider label={t('usage.title')} />
          <UsageChart clientId={id} />
          {canManage && (
            <>
              <Divider label={t('subscription.title')} />
              <SubscriptionLink clientId={id} clientName={data.name} />
            </>
          )}
          <Divider label={t('clients.devices')} />
          <Devices
            clientId={id}
            devices={data.devices}
            interfaces={interfaces}
            canManage={canManage}
            onChange={refresh}
          />
        </Stack>
      )}
      <Suspense>{configs && data && <ConfigsModal clientId={id} onClose={() => setConfigs(false)} />}</Suspense>
    </Drawer>
  );
}
