import type { PickHop } from '../outbounds/balancer-pick.js';

/**
 * What is wrong with a balancer as it stands, in the shape of the security warnings
 * (server/security-warnings.ts: a stable code the web panel words in its own language, a
 * severity, a sentence, what to do). A pinned hop that is disabled is accepted, as documented (the
 * operator may pin first and enable after), but meanwhile the balancer's traffic goes nowhere.
 */
export const BALANCER_WARNING_CODES = ['override-hop-disabled'] as const;
export type BalancerWarningCode = (typeof BALANCER_WARNING_CODES)[number];

export interface BalancerWarning {
  code: BalancerWarningCode;
  severity: 'warning';
  message: string;
  action: string;
}

export function balancerWarnings(
  balancer: { tag: string; overrideId: string | null },
  hops: ReadonlyMap<string, PickHop>,
  failClosed: boolean,
): BalancerWarning[] {
  const pinned = balancer.overrideId === null ? undefined : hops.get(balancer.overrideId);
  if (!pinned || pinned.enabled) return [];
  return [
    {
      code: 'override-hop-disabled',
      severity: 'warning',
      message: `Balancer "${balancer.tag}" is pinned to the disabled hop "${pinned.tag}": its traffic goes ${
        failClosed ? 'nowhere (blocked: the node fails closed)' : 'direct, not through any hop'
      }.`,
      action: `Enable the hop "${pinned.tag}", or clear the override (POST /api/balancers/{id}/override with {"outboundId": null}).`,
    },
  ];
}
