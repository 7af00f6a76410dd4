import { CommandError, type CommandRunner } from '../command-runner.js';
import { hex } from './hop-numbers.js';
import type { Counter, HopRoute } from './routing-ruleset.js';

/**
 * Per-hop traffic in the agent's routing table (docs/agent-host.md, "Hop traffic"): two named
 * nftables counters per hop, named after its outbound id (so a slot another outbound takes later
 * never inherits them), `hu_<id>` for up and `hd_<id>` for down.
 *
 * - Up: the `hop_traffic_up` chain (prerouting, after the `route` chain) counts every packet
 *   from a tunnel that the route chain gave the hop's mark, and stamps the mark on its
 *   connection (`ct mark`). Proxy hops count TCP only: they carry nothing else (other marked
 *   packets are dropped when fail-closed, or leave directly).
 * - Down: the `hop_traffic_down` chain (postrouting) counts the reply direction of connections
 *   with a hop's ct mark: forwarded from a WireGuard hop's interface, or sent by the hop's local
 *   redirector back to the client.
 *
 * Bytes are IP packets as they pass the node on the clients' side (IP and TCP/UDP headers
 * included), i.e. what the hop carried for clients; a WireGuard hop's own encryption and
 * keepalives and a proxy's protocol are not in them. The table is replaced on every apply: the
 * counters' values are read first and written into the new one (as the rules' counters are),
 * so an apply never resets them.
 */

export interface HopReading {
  /** The outbound's id. */
  id: string;
  upBytes: number;
  downBytes: number;
}

const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function hopCounterNames(id: string): { up: string; down: string } {
  const lower = id.toLowerCase();
  if (!ID.test(lower)) throw new Error(`outbound id ${JSON.stringify(id)} is not a UUID`);
  const compact = lower.replace(/-/g, '');
  return { up: `hu_${compact}`, down: `hd_${compact}` };
}

/** The outbound id a counter name stands for, and which way it counts; null when it is not a hop counter. */
export function hopOfCounter(name: string): { id: string; way: 'up' | 'down' } | null {
  const match = /^h([ud])_([0-9a-f]{32})$/.exec(name);
  if (!match) return null;
  const h = match[2];
  const id = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  return { id, way: match[1] === 'u' ? 'up' : 'down' };
}

/**
 * The counters and the two counting chains, as lines of the routing table's body. `carried`
 * holds the values read from the table being replaced, by counter name.
 */
export function renderHopCounters(
  hops: Iterable<HopRoute>,
  tunnels: readonly string[],
  carried: ReadonlyMap<string, Counter>,
  tunnelList: string,
): string[] {
  const counted = [...hops].filter((hop) => hop.id);
  if (counted.length === 0 || tunnels.length === 0) return [];
  const objects: string[] = [];
  const up: string[] = [];
  const down: string[] = [];
  for (const hop of counted) {
    const names = hopCounterNames(hop.id);
    for (const name of [names.up, names.down]) {
      const value = carried.get(name) ?? { packets: 0, bytes: 0 };
      objects.push(`\tcounter ${name} {\n\t\tpackets ${value.packets} bytes ${value.bytes}\n\t}`);
    }
    const mark = hex(hop.mark);
    const tcpOnly = hop.kind === 'wireguard' ? '' : 'meta l4proto tcp ';
    up.push(`\t\tmeta mark ${mark} ${tcpOnly}ct mark set ${mark} counter name "${names.up}" return`);
    down.push(`\t\tct mark ${mark} counter name "${names.down}"`);
  }
  return [
    ...objects,
    '\tchain hop_traffic_up {',
    // After the route chain (mangle, -150), which sets the marks.
    '\t\ttype filter hook prerouting priority -140; policy accept;',
    `\t\tiifname != ${tunnelList} return`,
    ...up,
    // A connection routed elsewhere since: its replies no longer count for the hop.
    `\t\tct mark & 0xffffff00 == ${hex(0x5700)} ct mark set 0x0`,
    '\t}',
    '\tchain hop_traffic_down {',
    '\t\ttype filter hook postrouting priority -140; policy accept;',
    '\t\tct direction original return',
    ...down,
    '\t}',
  ];
}

interface NftCounters {
  nftables?: Array<{ counter?: { name?: string; bytes?: number; packets?: number } }>;
}

/** The hop counters in `nft -j` output, by counter name. */
export function parseHopCounters(json: string): Map<string, Counter> {
  const found = new Map<string, Counter>();
  for (const item of (JSON.parse(json) as NftCounters).nftables ?? []) {
    const name = item.counter?.name;
    if (name && hopOfCounter(name))
      found.set(name, { packets: item.counter?.packets ?? 0, bytes: item.counter?.bytes ?? 0 });
  }
  return found;
}

/**
 * What the hops carried so far (absolute, since the counters were made): the counter spool makes
 * deltas. No routing table: none (its counters are gone). Null when nft failed otherwise: the
 * spool then keeps its baseline rather than take the hops for gone and count them again later.
 */
export async function readHopCounters(runner: CommandRunner, table: string): Promise<HopReading[] | null> {
  let stdout: string;
  try {
    ({ stdout } = await runner.run('nft', ['-j', 'list', 'counters', 'table', 'ip', table]));
  } catch (error) {
    if (error instanceof CommandError && /No such file or directory/.test(error.stderr)) return [];
    return null;
  }
  const byId = new Map<string, HopReading>();
  for (const [name, counter] of parseHopCounters(stdout)) {
    const hop = hopOfCounter(name)!;
    const reading = byId.get(hop.id) ?? { id: hop.id, upBytes: 0, downBytes: 0 };
    if (hop.way === 'up') reading.upBytes = counter.bytes;
    else reading.downBytes = counter.bytes;
    byId.set(hop.id, reading);
  }
  return [...byId.values()];
}
