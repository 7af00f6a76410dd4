import type { InterfaceCounters } from './proc.js';

/** Loopback traffic never leaves the host, so it is not the host's network use. */
export const isLoopback = (name: string): boolean => name === 'lo';

/** Byte counters summed over every interface but loopback. */
export function hostTotals(interfaces: Map<string, InterfaceCounters>): InterfaceCounters {
  let rxBytes = 0;
  let txBytes = 0;
  for (const [name, counters] of interfaces) {
    if (isLoopback(name)) continue;
    rxBytes += counters.rxBytes;
    txBytes += counters.txBytes;
  }
  return { rxBytes, txBytes };
}

/**
 * Bytes moved between two readings, per interface and then summed. Per interface, because a
 * tunnel interface that is deleted or recreated between readings would otherwise make the
 * host's total drop (a negative rate) or jump. A counter lower than before belongs to a
 * recreated interface: it counted from zero within the interval. An interface that appeared
 * counted from zero within the interval too.
 */
export function transferredBetween(
  previous: Map<string, InterfaceCounters>,
  current: Map<string, InterfaceCounters>,
): InterfaceCounters {
  let rxBytes = 0;
  let txBytes = 0;
  for (const [name, now] of current) {
    if (isLoopback(name)) continue;
    const before = previous.get(name);
    rxBytes += before && now.rxBytes >= before.rxBytes ? now.rxBytes - before.rxBytes : now.rxBytes;
    txBytes += before && now.txBytes >= before.txBytes ? now.txBytes - before.txBytes : now.txBytes;
  }
  return { rxBytes, txBytes };
}
