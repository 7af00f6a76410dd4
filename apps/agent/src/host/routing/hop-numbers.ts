/**
 * The numbers a hop gets on the host, all derived from its slot (1..250, stable for the
 * outbound's life on the node: libs/contracts/routing.ts), so an apply never renumbers what is
 * in place and the agent recognises what it made by number alone. Documented in docs/agent-host.md.
 */

export const MIN_SLOT = 1;
export const MAX_SLOT = 250;

/** fwmark of traffic routed to the hop: 0x5701..0x57fa. */
export const MARK_BASE = 0x5700;
/** Routing table of a WireGuard hop: the mark's number, 22273..22522. */
export const TABLE_BASE = 0x5700;
/** `ip rule pref` of `fwmark M lookup T`: 22001..22250 belong to the agent. */
export const MARK_RULE_PREF_BASE = 22_000;
/** `ip rule pref` of `from <hop address> lookup T` (probes bind to it): 22301..22550. */
export const SOURCE_RULE_PREF_BASE = 22_300;
/** Local port of the hop's transparent redirector (redsocks, ss-redir): 12301..12550. */
export const REDIRECT_PORT_BASE = 12_300;
/** Metric of the fail-closed `unreachable default` in a hop's table: below every real route. */
export const FAIL_CLOSED_METRIC = 4_000_000_000;

export interface HopNumbers {
  mark: number;
  table: number;
  markRulePref: number;
  sourceRulePref: number;
  port: number;
}

export function hopNumbers(slot: number): HopNumbers {
  if (!Number.isInteger(slot) || slot < MIN_SLOT || slot > MAX_SLOT)
    throw new Error(`hop slot ${JSON.stringify(slot)} refused: it must be a whole number in ${MIN_SLOT}..${MAX_SLOT}`);
  return {
    mark: MARK_BASE + slot,
    table: TABLE_BASE + slot,
    markRulePref: MARK_RULE_PREF_BASE + slot,
    sourceRulePref: SOURCE_RULE_PREF_BASE + slot,
    port: REDIRECT_PORT_BASE + slot,
  };
}

/** The slot an `ip rule` priority or table of ours stands for, or null when it is not ours. */
export function slotOfPref(pref: number): { slot: number; kind: 'mark' | 'source' } | null {
  if (pref > MARK_RULE_PREF_BASE && pref <= MARK_RULE_PREF_BASE + MAX_SLOT)
    return { slot: pref - MARK_RULE_PREF_BASE, kind: 'mark' };
  if (pref > SOURCE_RULE_PREF_BASE && pref <= SOURCE_RULE_PREF_BASE + MAX_SLOT)
    return { slot: pref - SOURCE_RULE_PREF_BASE, kind: 'source' };
  return null;
}

export function slotOfTable(table: number): number | null {
  return table > TABLE_BASE && table <= TABLE_BASE + MAX_SLOT ? table - TABLE_BASE : null;
}

export const hex = (mark: number) => `0x${mark.toString(16)}`;
