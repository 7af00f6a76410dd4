/**
 * How much a client may still send through the kernel, and how that is kept true.
 *
 * The panel counts what WireGuard counts: the encrypted messages of a client's peers (an inner
 * packet plus 32 bytes of header and tag, padded to 16), handshakes and keepalives included. An
 * nftables quota can only count the inner packets it sees on the tunnel. So the kernel quota is
 * given the remaining WireGuard bytes converted into inner bytes with the client's observed ratio
 * (inner / WireGuard bytes), and that conversion is corrected every report round from the real
 * WireGuard counters: the kernel cuts at its limit without waiting for anyone, and the limit is
 * kept such that the cut falls where WireGuard's count reaches the allowance.
 */

/** The ratio a client starts with before any of its traffic was seen: below bulk TCP's (~0.96), so a first cut falls short, not over. */
export const INITIAL_RATIO = 0.94;
/** A ratio is learnt only from at least this many WireGuard bytes (a few packets give a noisy one). */
export const RATIO_SAMPLE_BYTES = 64 * 1024;
/** The lowest ratio believed (minimum-size packets: 1 inner byte in 48 WireGuard bytes). */
const MIN_RATIO = 1 / 48;
/**
 * The long-run ratio weighs at most about this many WireGuard bytes: past it both sums are halved,
 * so a client whose traffic changes kind is followed within a few times this much.
 */
export const LONG_RUN_BYTES = 64 * 1024 * 1024;

/** A client's traffic as both counters saw it over the rounds learnt from (its long-run ratio). */
export interface RatioHistory {
  /** Inner bytes the kernel quota counted over those rounds. */
  inner: number;
  /** WireGuard bytes over the same rounds. */
  wire: number;
}

/** One client's allowance as the agent keeps it between report rounds (quotas.json). */
export interface QuotaArm {
  /** The panel's remaining bytes this arm started from (the desired state's remainingBytes). */
  remaining: number;
  /** WireGuard bytes (rx + tx) of the client's peers counted since the arm. */
  wireSince: number;
  /** The last WireGuard reading per peer ("interface publicKey" → rx + tx), to count deltas. */
  lastWire: Record<string, number>;
  /** Inner bytes per WireGuard byte the grant is made with (see `learnRatio`). */
  ratio: number;
  /** The rounds learnt from so far, this arm's and the client's earlier arms'. */
  history: RatioHistory;
  /** The kernel quota's consumed bytes at the previous round, or null when not comparable. */
  lastUsed: number | null;
  /** WireGuard bytes since the arm at the previous round. */
  lastWireSince: number;
}

/** What the kernel says of one quota: its limit and consumed bytes (capped at the limit when over). */
export interface KernelQuota {
  limit: number;
  used: number;
}

/** What to do to one kernel quota. */
export type QuotaChange =
  /** Change the limit in place: the kernel keeps counting, nothing is lost in between. */
  | { kind: 'update'; limit: number }
  /** Make it anew with nothing consumed (it is over: nothing passes, so nothing is lost either). */
  | { kind: 'create'; limit: number }
  /** Nothing to change. */
  | { kind: 'keep' };

/** A new arm of `remaining` bytes from the WireGuard counters now; `before` is the client's earlier arm. */
export function newArm(
  remaining: number,
  wire: ReadonlyMap<string, number>,
  before?: Pick<QuotaArm, 'ratio' | 'history'>,
): QuotaArm {
  return {
    remaining,
    wireSince: 0,
    lastWire: Object.fromEntries(wire),
    ratio: before?.ratio ?? INITIAL_RATIO,
    // Arms written before the history was kept have none: they start learning again.
    history: before?.history ? { ...before.history } : { inner: 0, wire: 0 },
    lastUsed: null,
    lastWireSince: 0,
  };
}

/**
 * Adds the WireGuard bytes the client's peers moved since the last reading. A counter below its
 * last value restarted (the interface was re-created): all of it is new. A peer not read before
 * counts from its reading at the arm, or from 0 when it appeared later.
 */
export function countWire(arm: QuotaArm, wire: ReadonlyMap<string, number>): void {
  const last: Record<string, number> = {};
  for (const [key, value] of wire) {
    const before = Object.hasOwn(arm.lastWire, key) ? arm.lastWire[key] : 0;
    arm.wireSince += value >= before ? value - before : value;
    last[key] = value;
  }
  arm.lastWire = last;
}

/** WireGuard bytes the client may still move under this arm. */
export function wireLeft(arm: QuotaArm): number {
  return Math.max(0, arm.remaining - arm.wireSince);
}

/**
 * The kernel change that lets the client move exactly what it has left, given the kernel's
 * quota (undefined: none yet). Learns the ratio from the round's traffic when the quota was not
 * over at either end (dropped packets are consumed by the quota but never reach WireGuard).
 */
export function nextChange(arm: QuotaArm, kernel: KernelQuota | undefined): QuotaChange {
  const over = kernel !== undefined && kernel.used >= kernel.limit;
  if (kernel && !over && arm.lastUsed !== null && kernel.used >= arm.lastUsed)
    learnRatio(arm, kernel.used - arm.lastUsed, arm.wireSince - arm.lastWireSince);
  const grant = Math.floor(wireLeft(arm) * arm.ratio);
  arm.lastWireSince = arm.wireSince;
  if (!kernel) {
    arm.lastUsed = 0;
    return { kind: 'create', limit: grant };
  }
  if (over) {
    // Blocked and nothing left: stays as it is. Otherwise a fresh quota, since the consumed bytes
    // the kernel shows are capped at the limit and the dropped bytes beyond it would eat the grant.
    arm.lastUsed = grant === 0 ? null : 0;
    return grant === 0 ? { kind: 'keep' } : { kind: 'create', limit: grant };
  }
  arm.lastUsed = kernel.used;
  const limit = kernel.used + grant;
  return limit === kernel.limit ? { kind: 'keep' } : { kind: 'update', limit };
}

/**
 * Learns from one round's bytes: the ratio becomes the lower of this round's and the long-run one.
 * A round's own ratio is noisy: the kernel is read a few milliseconds before WireGuard, and a burst
 * that starts or ends in between lands in one count and not the other (at 100 Mbit/s, 10 ms is
 * 125 kB: +1.7% on a round of 7 MB was measured, 91 kB over the quota once the rest went in one
 * burst). Over many rounds those shifts cancel out, so the long-run ratio is steady; this round's
 * keeps a change to smaller packets (a lower ratio) from waiting for the long run. Lower is the safe
 * side: a cut that falls short is re-granted the next round.
 */
function learnRatio(arm: QuotaArm, inner: number, wire: number): void {
  if (wire <= 0) return;
  const history = arm.history;
  history.inner += inner;
  history.wire += wire;
  if (history.wire > LONG_RUN_BYTES) {
    history.inner /= 2;
    history.wire /= 2;
  }
  if (history.wire < RATIO_SAMPLE_BYTES) return;
  const longRun = history.inner / history.wire;
  arm.ratio = clampRatio(wire >= RATIO_SAMPLE_BYTES ? Math.min(longRun, inner / wire) : longRun);
}

function clampRatio(ratio: number): number {
  return Math.min(1, Math.max(MIN_RATIO, ratio));
}
