import {
  MAX_ERROR_TEXT,
  MAX_GAP_TEXT,
  MAX_HOPS_PER_BATCH,
  MAX_GAPS,
  MAX_PEER_BYTES_PER_BATCH,
  MAX_PEERS_PER_BATCH,
  MAX_VERSION_TEXT,
  type AgentMessage,
  type Capabilities,
  type ControllerMessage,
  type HopCounters,
  type PeerCounters,
} from './agent-link.js';
import {
  MAX_INTERFACES_PER_APPLY,
  MAX_OUTCOME_ERROR_TEXT,
  MAX_PEERS_PER_INTERFACE,
  type ApplyResult,
  type InterfaceOutcome,
  type OutboundOutcome,
  type RoutingOutcome,
} from './node-queue.js';
import { MAX_RULES_PER_NODE } from './routing.js';
import { MAX_TIMESTAMP_MS } from './numbers.js';
import type { SystemSample } from './system.js';

/**
 * The largest message each side of the agent link can legitimately send, in bytes of JSON as
 * JSON.stringify writes it, worked out from the bounds of the schemas (agent-link.ts, system.ts,
 * node-queue.ts). The WebSocket refuses anything larger before reading it into memory, so the
 * limit is the contract's, not a guess (it was a flat 64 MiB). A field added to a message without
 * a size here fails to compile (every key of the message type must be sized), and
 * libs/contracts/link-message-size.spec.ts checks the figures against the widest messages the
 * schemas accept.
 */

/** Free text of at most `chars` UTF-16 units: JSON writes a control character as \u00XX, six bytes. */
const text = (chars: number) => 2 + 6 * chars;
/** A string of at most `chars` characters that JSON writes as they are (ASCII patterns: keys, ids, endpoints). */
const ascii = (chars: number) => 2 + chars;
/** A whole number in 0..max. */
const whole = (max: number) => String(max).length;
/** Any finite number: at most 24 characters (-1.2345678901234567e-308). */
const NUMBER = 24;
const BOOLEAN = 'false'.length;
const NULL = 'null'.length;

/** `{"key":value,...}` with every key of T sized (optional keys included, as if present). */
function object<T extends object>(sizes: { [K in keyof T]-?: number }): number {
  const entries = Object.entries(sizes) as [string, number][];
  return (
    2 + entries.reduce((sum, [key, size]) => sum + ascii(key.length) + 1 + size, 0) + Math.max(0, entries.length - 1)
  );
}
/** `[item,item,...]` of at most `count` items. */
const array = (count: number, item: number) => 2 + count * item + Math.max(0, count - 1);
const type = (name: string) => ascii(name.length);

const PEER = object<PeerCounters>({
  interface: text(15),
  publicKey: ascii(44),
  rxBytes: whole(MAX_PEER_BYTES_PER_BATCH),
  txBytes: whole(MAX_PEER_BYTES_PER_BATCH),
  lastHandshake: Math.max(whole(MAX_TIMESTAMP_MS), NULL),
  endpoint: Math.max(ascii(64), NULL),
});

const HOP = object<HopCounters>({
  id: ascii(36),
  upBytes: whole(MAX_PEER_BYTES_PER_BATCH),
  downBytes: whole(MAX_PEER_BYTES_PER_BATCH),
});

const CAPABILITIES = object<Capabilities>({
  root: BOOLEAN,
  wireguardKernel: BOOLEAN,
  wireguardGo: BOOLEAN,
  wg: BOOLEAN,
  nft: BOOLEAN,
  ip: BOOLEAN,
});

const USAGE = object<SystemSample['memory']>({ used: NUMBER, total: NUMBER, percent: NUMBER });
const SAMPLE = object<SystemSample>({
  at: whole(MAX_TIMESTAMP_MS),
  cpu: object<SystemSample['cpu']>({ percent: NUMBER, cores: NUMBER, load1: NUMBER, load5: NUMBER, load15: NUMBER }),
  memory: USAGE,
  swap: USAGE,
  disk: USAGE,
  network: object<SystemSample['network']>({ rxBytes: NUMBER, txBytes: NUMBER, rxRate: NUMBER, txRate: NUMBER }),
  uptimeSeconds: NUMBER,
  processRss: NUMBER,
});

const OUTCOME = object<InterfaceOutcome>({
  name: text(15),
  state: ascii('removed'.length),
  driver: ascii('wireguard-go'.length),
  peers: whole(MAX_PEERS_PER_INTERFACE),
  error: text(MAX_OUTCOME_ERROR_TEXT),
});
const OUTBOUND_OUTCOME = object<OutboundOutcome>({
  tag: ascii(64),
  state: ascii('failed'.length),
  error: text(MAX_OUTCOME_ERROR_TEXT),
});
/** Outbounds a node runs (desired-state.ts). */
const MAX_OUTBOUNDS = 250;
const APPLY_RESULT = object<ApplyResult>({
  revision: whole(Number.MAX_SAFE_INTEGER),
  ok: BOOLEAN,
  interfaces: array(MAX_INTERFACES_PER_APPLY, OUTCOME),
  durationMs: NUMBER,
  outbounds: array(MAX_OUTBOUNDS, OUTBOUND_OUTCOME),
  routing: object<RoutingOutcome>({
    state: ascii('failed'.length),
    rules: whole(MAX_RULES_PER_NODE),
    error: text(MAX_OUTCOME_ERROR_TEXT),
  }),
});
const RULE_HITS = object<{ id: string; packets: number }>({ id: ascii(36), packets: whole(2 ** 44) });

type Sizes<M extends { type: string }> = { [T in M['type']]: number };

/** The largest message of each type an agent sends. */
export const AGENT_MESSAGE_BYTES: Sizes<AgentMessage> = {
  hello: object<Extract<AgentMessage, { type: 'hello' }>>({
    type: type('hello'),
    version: text(MAX_VERSION_TEXT),
    capabilities: CAPABILITIES,
    gaps: array(MAX_GAPS, text(MAX_GAP_TEXT)),
    appliedRevision: whole(Number.MAX_SAFE_INTEGER),
    deltas: BOOLEAN,
  }),
  gap: object<Extract<AgentMessage, { type: 'gap' }>>({
    type: type('gap'),
    revision: whole(Number.MAX_SAFE_INTEGER),
    appliedRevision: whole(Number.MAX_SAFE_INTEGER),
  }),
  heartbeat: object<Extract<AgentMessage, { type: 'heartbeat' }>>({
    type: type('heartbeat'),
    at: whole(MAX_TIMESTAMP_MS),
  }),
  system: object<Extract<AgentMessage, { type: 'system' }>>({ type: type('system'), sample: SAMPLE }),
  counters: object<Extract<AgentMessage, { type: 'counters' }>>({
    type: type('counters'),
    seq: whole(Number.MAX_SAFE_INTEGER),
    at: whole(MAX_TIMESTAMP_MS),
    since: whole(MAX_TIMESTAMP_MS),
    peers: array(MAX_PEERS_PER_BATCH, PEER),
    hops: array(MAX_HOPS_PER_BATCH, HOP),
  }),
  applied: object<Extract<AgentMessage, { type: 'applied' }>>({ type: type('applied'), result: APPLY_RESULT }),
  'rule-hits': object<Extract<AgentMessage, { type: 'rule-hits' }>>({
    type: type('rule-hits'),
    rules: array(MAX_RULES_PER_NODE, RULE_HITS),
  }),
};

/** The largest message of each type the controller sends. */
export const CONTROLLER_MESSAGE_BYTES: Sizes<ControllerMessage> = {
  welcome: object<Extract<ControllerMessage, { type: 'welcome' }>>({
    type: type('welcome'),
    nodeId: ascii(36),
    countersSeq: whole(Number.MAX_SAFE_INTEGER),
  }),
  ack: object<Extract<ControllerMessage, { type: 'ack' }>>({ type: type('ack'), seq: whole(Number.MAX_SAFE_INTEGER) }),
  error: object<Extract<ControllerMessage, { type: 'error' }>>({ type: type('error'), error: text(MAX_ERROR_TEXT) }),
};

/** What the controller's end of the link accepts (a full counter batch: about 30 MB). */
export const MAX_AGENT_MESSAGE_BYTES = Math.max(...Object.values(AGENT_MESSAGE_BYTES));
/** What the agent's end accepts. */
export const MAX_CONTROLLER_MESSAGE_BYTES = Math.max(...Object.values(CONTROLLER_MESSAGE_BYTES));
