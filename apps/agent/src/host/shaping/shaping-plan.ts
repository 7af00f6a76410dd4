import { createHash } from 'node:crypto';
import type { DesiredSpeedLimit } from '#libs/contracts/desired-state.js';

/**
 * Speed limits as tc commands (docs/agent-host.md, "Speed limits"): pure, so every rule is
 * testable without a kernel. Per shaped tunnel T:
 *
 * - download (to a client's addresses): an HTB qdisc `1:` at T's root, one class per limited
 *   client (rate = ceil: no borrowing), and u32 filters on the destination address;
 * - upload (from its addresses): T's ingress redirected (mirred) to an ifb device I with the same
 *   HTB tree, filtered on the source address.
 *
 * Unclassified packets (unlimited clients) leave HTB's direct queue unshaped (`default 0`).
 *
 * Two levels, because the kernel makes a flat HTB quadratic: adding a class walks every class of
 * its qdisc (tc_bind_tclass, a mutex per class), so 10,000 classes in one qdisc took minutes. A
 * client's class minor m (1..65535) puts it in group g = (m-1) >> 8: the root qdisc `1:` has one
 * pass-through class `1:<g+1>` per group (a rate nothing reaches), whose leaf is a qdisc `<g+2>:`
 * (HTB) holding that group's 256 client classes `<g+2>:<m>`. Each add then walks 256 classes at most.
 *
 * Filters, each hashed so a packet is classified in a few table lookups whatever the number of
 * peers: at the root, table `200:` keyed on the address's third byte links to a table per
 * third-byte value (`<byte3+1>:`) keyed on the fourth, whose bucket holds the address's filter
 * `<byte3+1>:<byte4>:<node>` → the group's class `1:<g+1>`; in the group's qdisc, table `100:`
 * keyed on the fourth byte holds `100:<byte4>:<node>` → the client's class. Handles are recorded,
 * so a change is a diff: a new rate is `class change` (in place: the class and its queue stay, the
 * tunnel is never touched), a removed client loses its filters and classes.
 */

/** What the agent loaded for one tunnel (its part of shaping.json). */
export interface ShapedInterface {
  ifb: string;
  /** Byte-3 values whose second-level table exists on both devices. */
  tables: number[];
  /** Groups whose pass-through class, qdisc and filter table exist on both devices. */
  groups: number[];
  /** By client id. */
  clients: Record<string, ShapedClient>;
  /** SHA-256 of the limits this was planned from: the same limits on a healthy host plan nothing (shaping-host.ts). */
  digest?: string;
}

export interface ShapedClient {
  rate: number;
  /** The HTB class minor, the same on T and I. */
  minor: number;
  /** Address → its filters' node numbers inside their buckets: [root's, the group qdisc's] (the same on T and I). */
  ips: Record<string, [number, number]>;
}

/** What the kernel shows about the tunnel and its ifb (`tc qdisc show`), for the health check. */
export interface QdiscFacts {
  /** The tunnel's root qdisc is not the device's default (someone set one: ours or another). */
  tunnelRoot: boolean;
  /** ... and it is ours: `htb 1:`. */
  tunnelHtb: boolean;
  tunnelIngress: boolean;
  ifbExists: boolean;
  ifbRoot: boolean;
  ifbHtb: boolean;
}

export interface InterfacePlan {
  /** tc batch lines, in order. */
  tc: string[];
  /** ip batch lines run before the tc lines (the ifb made and up). */
  ipBefore: string[];
  /** ip batch lines run after them (the ifb removed). */
  ipAfter: string[];
  /** What the host holds once all of them succeeded; null = nothing shaped any more. */
  next: ShapedInterface | null;
  /** Limits that could not be honoured (duplicates, out of class or filter numbers). */
  problems: string[];
}

const PRIO = 10;
const TOP_TABLE = 0x200;
/** The filter table inside each group's qdisc. */
const GROUP_TABLE = 0x100;
/** A group's pass-through class: a rate no tunnel reaches, so only its clients' classes limit. */
const GROUP_CLASS = 'htb rate 1000gbit ceil 1000gbit burst 1mb cburst 1mb quantum 10000';
const MAX_MINOR = 0xffff;
const MAX_NODE = 0xfff;
/** Bytes of the IPv4 header's destination (download, on T) and source (upload, on I) fields. */
const DST_OFFSET = 16;
const SRC_OFFSET = 12;
/**
 * HTB's quantum only matters between classes that borrow, which these never do (rate = ceil); a
 * fixed one above any MTU keeps the kernel from computing (and warning about) one per rate.
 */
const QUANTUM = 10_000;
/** Bytes: two packets of a 9000-byte MTU. */
const MIN_BURST = 18_000;

/** The ifb device carrying a tunnel's upload: `ifb` + 12 hex digits of the name's SHA-256 (15 bytes, as Linux allows). */
export function ifbName(tunnel: string): string {
  return `ifb${createHash('sha256').update(tunnel).digest('hex').slice(0, 12)}`;
}

const hex = (n: number) => n.toString(16);

/**
 * The commands that take tunnel `tunnel` from `prev` (what the agent recorded; null = nothing or
 * unknown) to `limits`. `facts` is the kernel's view: when it does not show what `prev` says was
 * loaded (a re-created tunnel, a hand edit, a failed batch), everything is rebuilt from scratch.
 */
export function planInterface(
  tunnel: string,
  prev: ShapedInterface | null,
  limits: readonly DesiredSpeedLimit[],
  facts: QdiscFacts,
): InterfacePlan {
  const ifb = prev?.ifb ?? ifbName(tunnel);
  const plan: InterfacePlan = { tc: [], ipBefore: [], ipAfter: [], next: null, problems: [] };
  const healthy = prev !== null && Array.isArray(prev.groups) && facts.tunnelHtb && facts.tunnelIngress && facts.ifbHtb;

  if (limits.length === 0) {
    // Nobody limited: nothing of ours stays on the tunnel (unlimited clients are never shaped).
    if (facts.tunnelRoot) plan.tc.push(`qdisc del dev ${tunnel} root`);
    if (facts.tunnelIngress) plan.tc.push(`qdisc del dev ${tunnel} ingress`);
    if (facts.ifbExists) plan.ipAfter.push(`link del ${ifb}`);
    return plan;
  }

  let state: ShapedInterface;
  if (healthy) {
    state = structuredClone(prev!);
  } else {
    state = { ifb, tables: [], groups: [], clients: {} };
    if (facts.tunnelRoot) plan.tc.push(`qdisc del dev ${tunnel} root`);
    if (facts.tunnelIngress) plan.tc.push(`qdisc del dev ${tunnel} ingress`);
    if (facts.ifbRoot) plan.tc.push(`qdisc del dev ${ifb} root`);
    // The ifb's own queue holds what HTB's default leaf (pfifo) queues: ifb's default of 32 packets is too short.
    if (!facts.ifbExists) plan.ipBefore.push(`link add ${ifb} txqueuelen 1000 type ifb`);
    plan.ipBefore.push(`link set ${ifb} up`);
    plan.tc.push(
      `qdisc add dev ${tunnel} root handle 1: htb`,
      `qdisc add dev ${ifb} root handle 1: htb`,
      `qdisc add dev ${tunnel} handle ffff: ingress`,
      `filter add dev ${tunnel} parent ffff: protocol ip prio ${PRIO} u32 match u32 0 0 action mirred egress redirect dev ${ifb}`,
    );
    for (const [dev, at] of devices(tunnel, ifb)) {
      plan.tc.push(
        `filter add dev ${dev} parent 1: protocol ip prio ${PRIO} handle ${hex(TOP_TABLE)}: u32 divisor 256`,
        `filter add dev ${dev} parent 1: protocol ip prio ${PRIO} handle 800::1 u32 ht 800:: match u32 0 0 hashkey mask 0x0000ff00 at ${at} link ${hex(TOP_TABLE)}:`,
      );
    }
  }
  diff(tunnel, state, limits, plan);
  plan.next = state;
  return plan;
}

function devices(tunnel: string, ifb: string): [string, number][] {
  return [
    [tunnel, DST_OFFSET],
    [ifb, SRC_OFFSET],
  ];
}

/** Appends the commands from `state` to `limits` and updates `state` to match. */
function diff(tunnel: string, state: ShapedInterface, limits: readonly DesiredSpeedLimit[], plan: InterfacePlan): void {
  const devs = devices(tunnel, state.ifb);
  // Each address once: a second claim on an address (a malformed job) is refused, not shaped twice.
  const wanted = new Map<string, { rate: number; ips: string[] }>();
  const claimed = new Set<string>();
  for (const limit of limits) {
    const ips: string[] = [];
    for (const ip of limit.ips) {
      if (claimed.has(ip)) plan.problems.push(`${ip} is limited twice; only its first limit is applied`);
      else {
        claimed.add(ip);
        ips.push(ip);
      }
    }
    const entry = wanted.get(limit.clientId);
    if (entry) entry.ips.push(...ips);
    else wanted.set(limit.clientId, { rate: limit.rateBitsPerSec, ips });
  }

  const filterDels: string[] = [];
  const classDels: string[] = [];
  const structure: string[] = [];
  const classAdds: string[] = [];
  const filterAdds: string[] = [];

  // Removals first: they free class minors and filter nodes the additions may reuse.
  for (const [id, client] of Object.entries(state.clients)) {
    const want = wanted.get(id);
    const keep = new Set(want?.ips ?? []);
    const group = groupOf(client.minor);
    for (const [ip, [outer, inner]] of Object.entries(client.ips)) {
      if (keep.has(ip)) continue;
      for (const [dev] of devs)
        filterDels.push(
          `filter del dev ${dev} parent 1: protocol ip prio ${PRIO} handle ${outerHandle(ip, outer)} u32`,
          `filter del dev ${dev} parent ${hex(group + 2)}: protocol ip prio ${PRIO} handle ${innerHandle(ip, inner)} u32`,
        );
      delete client.ips[ip];
    }
    if (!want || want.ips.length === 0) {
      for (const [dev] of devs) classDels.push(`class del dev ${dev} classid ${classId(client.minor)}`);
      delete state.clients[id];
    }
  }

  const minors = new Set(Object.values(state.clients).map((c) => c.minor));
  const outerNodes = new Map<string, Set<number>>();
  const innerNodes = new Map<string, Set<number>>();
  for (const client of Object.values(state.clients))
    for (const [ip, [outer, inner]] of Object.entries(client.ips)) {
      nodesOf(outerNodes, `${byte(ip, 2)}.${byte(ip, 3)}`).add(outer);
      nodesOf(innerNodes, `${groupOf(client.minor)}.${byte(ip, 3)}`).add(inner);
    }
  const tables = new Set(state.tables);
  const groups = new Set(state.groups);
  let nextMinor = 1;

  for (const [id, want] of wanted) {
    if (want.ips.length === 0) continue;
    let client = state.clients[id];
    if (client && client.rate !== want.rate) {
      for (const [dev] of devs)
        classAdds.push(
          `class change dev ${dev} parent ${hex(groupOf(client.minor) + 2)}: classid ${classId(client.minor)} ${htb(want.rate)}`,
        );
      client.rate = want.rate;
    }
    if (!client) {
      while (minors.has(nextMinor)) nextMinor++;
      if (nextMinor > MAX_MINOR) {
        plan.problems.push(`more than ${MAX_MINOR} limited clients on ${tunnel}; client ${id} is not limited`);
        continue;
      }
      minors.add(nextMinor);
      client = state.clients[id] = { rate: want.rate, minor: nextMinor, ips: {} };
      const group = groupOf(client.minor);
      if (!groups.has(group)) {
        groups.add(group);
        for (const [dev, at] of devs)
          structure.push(
            `class add dev ${dev} parent 1: classid 1:${hex(group + 1)} ${GROUP_CLASS}`,
            `qdisc add dev ${dev} parent 1:${hex(group + 1)} handle ${hex(group + 2)}: htb`,
            `filter add dev ${dev} parent ${hex(group + 2)}: protocol ip prio ${PRIO} handle ${hex(GROUP_TABLE)}: u32 divisor 256`,
            `filter add dev ${dev} parent ${hex(group + 2)}: protocol ip prio ${PRIO} handle 800::1 u32 ht 800:: match u32 0 0 hashkey mask 0x000000ff at ${at} link ${hex(GROUP_TABLE)}:`,
          );
      }
      for (const [dev] of devs)
        classAdds.push(
          `class add dev ${dev} parent ${hex(group + 2)}: classid ${classId(client.minor)} ${htb(want.rate)}`,
        );
    }
    const group = groupOf(client.minor);
    for (const ip of want.ips) {
      if (client.ips[ip] !== undefined) continue;
      const outer = freeNode(nodesOf(outerNodes, `${byte(ip, 2)}.${byte(ip, 3)}`));
      const inner = freeNode(nodesOf(innerNodes, `${group}.${byte(ip, 3)}`));
      if (outer === null || inner === null) {
        plan.problems.push(`too many limited addresses share ${ip}'s last byte; ${ip} is not limited`);
        continue;
      }
      client.ips[ip] = [outer, inner];
      const third = byte(ip, 2);
      if (!tables.has(third)) {
        tables.add(third);
        for (const [dev, at] of devs)
          structure.push(
            `filter add dev ${dev} parent 1: protocol ip prio ${PRIO} handle ${hex(third + 1)}: u32 divisor 256`,
            `filter add dev ${dev} parent 1: protocol ip prio ${PRIO} handle ${hex(TOP_TABLE)}:${hex(third)}:1 u32 ht ${hex(TOP_TABLE)}:${hex(third)}: match u32 0 0 hashkey mask 0x000000ff at ${at} link ${hex(third + 1)}:`,
          );
      }
      for (const [dev, at] of devs) {
        const match = `match ip ${at === DST_OFFSET ? 'dst' : 'src'} ${ip}/32`;
        const o = outerHandle(ip, outer);
        const i = innerHandle(ip, inner);
        filterAdds.push(
          `filter add dev ${dev} parent 1: protocol ip prio ${PRIO} handle ${o} u32 ht ${bucketOf(o)} ${match} flowid 1:${hex(group + 1)}`,
          `filter add dev ${dev} parent ${hex(group + 2)}: protocol ip prio ${PRIO} handle ${i} u32 ht ${bucketOf(i)} ${match} flowid ${classId(client.minor)}`,
        );
      }
    }
    // A client whose every address was refused holds no class worth keeping next time either.
  }
  state.tables = [...tables].sort((a, b) => a - b);
  state.groups = [...groups].sort((a, b) => a - b);
  plan.tc.push(...filterDels, ...classDels, ...structure, ...classAdds, ...filterAdds);
}

/**
 * The class parameters: a fixed rate with no borrowing, and a bucket of 100 ms at that rate (at
 * least two 9000-byte packets). tc's default (rate/HZ + one MTU: 1.6 KB at 10 Mbit/s) loses
 * tokens whenever the queue is served late, which on a busy host, and on the ifb (served from a
 * softirq), kept upload under the limit. Measured at 10 Mbit/s upload with iperf3 through
 * wireguard-go, the 2-core host at load ~22: 20 ms → 8.6, 50 ms → 9.1, 100 ms → 9.6 Mbit/s of TCP
 * payload (9.6 is the ceiling: 1368 of every 1420 bytes); the average over a second is the rate.
 */
function htb(rate: number): string {
  const burst = Math.max(MIN_BURST, Math.ceil(rate / 8 / 10));
  return `htb rate ${rate}bit ceil ${rate}bit burst ${burst} cburst ${burst} quantum ${QUANTUM}`;
}

function byte(ip: string, index: number): number {
  return Number(ip.split('.')[index]);
}

/** 256 client classes per group qdisc. */
function groupOf(minor: number): number {
  return (minor - 1) >> 8;
}

function classId(minor: number): string {
  return `${hex(groupOf(minor) + 2)}:${hex(minor)}`;
}

/** `<table>:<bucket>:<node>` of an address's root filter, in hex as tc reads handles. */
function outerHandle(ip: string, node: number): string {
  return `${hex(byte(ip, 2) + 1)}:${hex(byte(ip, 3))}:${hex(node)}`;
}

/** The same in its group's qdisc. */
function innerHandle(ip: string, node: number): string {
  return `${hex(GROUP_TABLE)}:${hex(byte(ip, 3))}:${hex(node)}`;
}

/** `<table>:<bucket>:` of a filter handle. */
function bucketOf(handle: string): string {
  return handle.slice(0, handle.lastIndexOf(':') + 1);
}

function nodesOf(nodes: Map<string, Set<number>>, key: string): Set<number> {
  let set = nodes.get(key);
  if (!set) nodes.set(key, (set = new Set()));
  return set;
}

/** The lowest free node number of a bucket (taken), or null when all 4095 are used. */
function freeNode(used: Set<number>): number | null {
  let node = 1;
  while (used.has(node)) node++;
  if (node > MAX_NODE) return null;
  used.add(node);
  return node;
}
