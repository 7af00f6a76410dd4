import { Badge, type BadgeProps } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { Schemas } from '../api.js';

// Mantine cuts a badge's label with an ellipsis when its cell is narrow ("ACTI…", "غیر…"): a
// state is never shortened; the badge keeps its whole word and the line wraps around it instead.
const WHOLE = {
  root: { flexShrink: 0, minWidth: 'fit-content', overflow: 'visible' },
  label: { overflow: 'visible', textOverflow: 'clip' },
} as const;

/** A state as a light badge, never truncated. */
export function StateBadge(props: BadgeProps & { children: React.ReactNode }) {
  return <Badge variant="light" styles={WHOLE} data-testid="state-badge" {...props} />;
}

export function StatusBadge({ status }: { status: Schemas['ClientDto']['status'] }) {
  const { t } = useTranslation();
  const color = { active: 'green', disabled: 'gray', expired: 'orange', exhausted: 'red' }[status];
  return <StateBadge color={color}>{t(`clients.status.${status}`)}</StateBadge>;
}

export function AgentBadge({ state }: { state: Schemas['NodeAgentDto']['state'] }) {
  const { t } = useTranslation();
  const color = state === 'connected' ? 'green' : state === 'disconnected' ? 'red' : 'gray';
  return <StateBadge color={color}>{t(`agentState.${state}`)}</StateBadge>;
}

/**
 * In sync or behind; an unmanaged node (no agent meant to run) is neither, and an offline one
 * (agent not linked) is offline: its applied revision is only what it last reported.
 */
export function SyncBadge({
  inSync,
  unmanaged = false,
  offline = false,
}: {
  inSync: boolean;
  unmanaged?: boolean;
  offline?: boolean;
}) {
  const { t } = useTranslation();
  if (unmanaged) return <StateBadge color="gray">{t('agentState.unmanaged')}</StateBadge>;
  if (offline)
    return (
      <StateBadge color="red" data-state="offline">
        {t('health.offline')}
      </StateBadge>
    );
  return <StateBadge color={inSync ? 'green' : 'yellow'}>{inSync ? t('nodes.inSync') : t('nodes.behind')}</StateBadge>;
}
