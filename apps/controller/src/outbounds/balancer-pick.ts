import { hashTable } from '#libs/contracts/routing-match.js';

/** How a balancer picks (balancers/ owns the rows; the pick lives here for the hop checks). */
export const BALANCER_STRATEGIES = ['failover', 'hash'] as const;
export type BalancerStrategy = (typeof BALANCER_STRATEGIES)[number];

/** A hop as a balancer's choice needs it. */
export interface PickHop {
  id: string;
  tag: string;
  enabled: boolean;
  /** The periodic checks' verdict (outbounds.health); null: never checked, taken as usable. */
  health: 'up' | 'down' | null;
}

export interface BalancerRule {
  strategy: BalancerStrategy;
  /** Outbound ids, in order. */
  hops: readonly string[];
  overrideId: string | null;
}

/** A hop a balancer may send traffic to now: enabled and not found down by its last check. */
export function usable(hop: PickHop | undefined): hop is PickHop {
  return hop !== undefined && hop.enabled && hop.health !== 'down';
}

/**
 * What a balancer sends traffic to now, as the node's desired state carries it
 * (DesiredBalancer.outbounds): the pinned hop while an override is set (whatever its health: the
 * operator chose it); for `failover` the first usable hop in order; for `hash` every usable hop
 * (the node spreads clients over its hops by source address, `hashPick`: see `balancerOutbounds`
 * for the list the node gets). With no usable hop, the
 * traffic goes where a down hop's would: `blocked` when fail-closed, `direct` when not.
 */
export function balancerTargets(
  balancer: BalancerRule,
  hops: ReadonlyMap<string, PickHop>,
  failClosed: boolean,
): string[] {
  const fallback = [failClosed ? 'blocked' : 'direct'];
  if (balancer.overrideId !== null) {
    const pinned = hops.get(balancer.overrideId);
    return pinned?.enabled ? [pinned.tag] : fallback;
  }
  const ready = balancer.hops.map((id) => hops.get(id)).filter(usable);
  if (ready.length === 0) return fallback;
  return balancer.strategy === 'failover' ? [ready[0].tag] : ready.map((hop) => hop.tag);
}

/**
 * What the node's desired state carries for the balancer (DesiredBalancer.outbounds): its
 * targets, except that a `hash` balancer with some hops unusable gets the table of `hashPick`
 * (`hashTable`), so a client whose own hop is usable keeps it and only the down hop's clients
 * move.
 */
export function balancerOutbounds(
  balancer: BalancerRule,
  hops: ReadonlyMap<string, PickHop>,
  failClosed: boolean,
): string[] {
  const targets = balancerTargets(balancer, hops, failClosed);
  if (balancer.strategy !== 'hash' || balancer.overrideId !== null) return targets;
  const listed = balancer.hops.map((id) => hops.get(id)).filter((hop): hop is PickHop => hop !== undefined);
  const ready = listed.filter(usable);
  return ready.length === 0
    ? targets
    : hashTable(
        listed.map((hop) => hop.tag),
        ready.map((hop) => hop.tag),
      );
}
