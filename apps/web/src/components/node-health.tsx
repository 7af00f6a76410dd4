import { Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { hostGapOf } from '../../../../libs/contracts/host-gaps.js';
import type { Schemas } from '../api.js';
import { StateBadge } from './badges.js';

type AgentState = Schemas['NodeAgentDto']['state'];

/**
 * The node's agent is meant to run and is not on a live link (never enrolled, never seen, or
 * gone): nothing the node last reported holds, so whatever belongs to it is shown as offline,
 * not as its last reported state. An unmanaged node (no agent meant to run) is not offline.
 */
export function isOfflineAgent(state: AgentState | undefined): boolean {
  return state === 'never-enrolled' || state === 'enrolled' || state === 'disconnected';
}

/**
 * "not applied: node unmanaged": for what belongs to a node no agent is meant to run for (the
 * local node with WARREN_LOCAL_AGENT=off). Nothing will ever apply it, so it is not "applying".
 */
export function NodeUnmanagedBadge() {
  const { t } = useTranslation();
  return (
    <StateBadge color="gray" data-state="node-unmanaged">
      {t('health.nodeUnmanaged')}
    </StateBadge>
  );
}

/** A node's sample older than this is stale even while its agent is linked (it reports every few seconds). */
export const STALE_SAMPLE_MS = 60_000;

/** "node offline": for what belongs to a node whose agent is not linked (interfaces, hosts, hops). */
export function NodeOfflineBadge() {
  const { t } = useTranslation();
  return (
    <StateBadge color="red" data-state="node-offline">
      {t('health.nodeOffline')}
    </StateBadge>
  );
}

/** "5 minutes ago", in the page's language and digits. */
export function formatAge(at: string | number | Date, language: string, now = Date.now()): string {
  const seconds = Math.round((new Date(at).getTime() - now) / 1000);
  const format = new Intl.RelativeTimeFormat(language, { numeric: 'auto' });
  const abs = Math.abs(seconds);
  if (abs < 60) return format.format(seconds, 'second');
  if (abs < 3600) return format.format(Math.round(seconds / 60), 'minute');
  if (abs < 86_400) return format.format(Math.round(seconds / 3600), 'hour');
  return format.format(Math.round(seconds / 86_400), 'day');
}

/** Whether a node's figure (sampled at `sampledAt`) no longer says how the node is now. */
export function isStale(sampledAt: string, agentState: AgentState, now = Date.now()): boolean {
  return agentState !== 'connected' || now - new Date(sampledAt).getTime() > STALE_SAMPLE_MS;
}

/** A figure of a node marked as stale, with its age: "12% · stale, 5 minutes ago". */
export function StaleNote({ sampledAt }: { sampledAt: string }) {
  const { t, i18n } = useTranslation();
  return (
    <Text span size="xs" c="orange" data-testid="stale">
      {t('health.stale', { age: formatAge(sampledAt, i18n.language) })}
    </Text>
  );
}

/**
 * What the agent reported its host cannot do (tools missing, not root), one warning a line: a
 * sentence this build knows (libs/contracts/host-gaps.ts) in the page's language, another as the
 * agent wrote it.
 */
export function AgentGaps({ gaps }: { gaps: string[] }) {
  const { t } = useTranslation();
  if (gaps.length === 0) return null;
  return (
    <Text size="xs" c="orange" component="div" data-testid="agent-gaps">
      {t('health.gaps')}
      <ul style={{ margin: 0, paddingInlineStart: '1.2em' }}>
        {gaps.map((gap) => {
          const key = hostGapOf(gap);
          return (
            // The item keeps the page's direction (its bullet inside the list's padding, on the
            // right in Persian); only the agent's own words, English, run left to right within it.
            <li key={gap} title={gap}>
              {key ? t(`health.gap.${key}`) : <bdi>{gap}</bdi>}
            </li>
          );
        })}
      </ul>
    </Text>
  );
}
