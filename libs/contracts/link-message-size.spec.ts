import {
  agentMessageSchema,
  controllerMessageSchema,
  MAX_GAP_TEXT,
  MAX_GAPS,
  MAX_HOPS_PER_BATCH,
  MAX_PEER_BYTES_PER_BATCH,
  MAX_PEERS_PER_BATCH,
  MAX_VERSION_TEXT,
  type AgentMessage,
} from './agent-link.js';
import { AGENT_MESSAGE_BYTES, CONTROLLER_MESSAGE_BYTES, MAX_AGENT_MESSAGE_BYTES } from './link-message-size.js';
import {
  MAX_APPLY_DURATION_MS,
  MAX_INTERFACES_PER_APPLY,
  MAX_OUTCOME_ERROR_TEXT,
  MAX_PEERS_PER_INTERFACE,
} from './node-queue.js';
import { MAX_TIMESTAMP_MS } from './numbers.js';
import { MAX_RULES_PER_NODE } from './routing.js';

/** Free text the schemas accept, written by JSON with the most bytes: control characters (\u0001). */
const widest = (chars: number) => '\u0001'.repeat(chars);
const bytes = (message: unknown) => Buffer.byteLength(JSON.stringify(message));
/** A double JSON writes in 23 characters, within every bound here. */
const LONG_NUMBER = 1.2345678901234568e-300;

const peer = {
  interface: 'a'.repeat(15),
  publicKey: `${'A'.repeat(43)}=`,
  rxBytes: MAX_PEER_BYTES_PER_BATCH,
  txBytes: MAX_PEER_BYTES_PER_BATCH,
  lastHandshake: MAX_TIMESTAMP_MS,
  endpoint: `[${'f'.repeat(60)}]:1`,
};

const hop = {
  id: '6f1c2f4e-0d1b-4c55-9a51-6a2b2f0c9e11',
  upBytes: MAX_PEER_BYTES_PER_BATCH,
  downBytes: MAX_PEER_BYTES_PER_BATCH,
};

/** The largest message of each type the schemas accept (but counters: one peer, then scaled). */
const largest: Record<AgentMessage['type'], AgentMessage> = {
  hello: {
    type: 'hello',
    version: widest(MAX_VERSION_TEXT),
    capabilities: { root: false, wireguardKernel: false, wireguardGo: false, wg: false, nft: false, ip: false },
    gaps: Array.from({ length: MAX_GAPS }, () => widest(MAX_GAP_TEXT)),
    appliedRevision: Number.MAX_SAFE_INTEGER,
    deltas: false,
  },
  gap: { type: 'gap', revision: Number.MAX_SAFE_INTEGER, appliedRevision: Number.MAX_SAFE_INTEGER },
  heartbeat: { type: 'heartbeat', at: MAX_TIMESTAMP_MS },
  system: {
    type: 'system',
    sample: {
      at: MAX_TIMESTAMP_MS,
      cpu: { percent: LONG_NUMBER, cores: 8192, load1: LONG_NUMBER, load5: LONG_NUMBER, load15: LONG_NUMBER },
      memory: { used: LONG_NUMBER, total: LONG_NUMBER, percent: LONG_NUMBER },
      swap: { used: LONG_NUMBER, total: LONG_NUMBER, percent: LONG_NUMBER },
      disk: { used: LONG_NUMBER, total: LONG_NUMBER, percent: LONG_NUMBER },
      network: { rxBytes: LONG_NUMBER, txBytes: LONG_NUMBER, rxRate: LONG_NUMBER, txRate: LONG_NUMBER },
      uptimeSeconds: LONG_NUMBER,
      processRss: LONG_NUMBER,
    },
  },
  counters: {
    type: 'counters',
    seq: Number.MAX_SAFE_INTEGER,
    at: MAX_TIMESTAMP_MS,
    since: MAX_TIMESTAMP_MS,
    peers: [peer],
    hops: Array.from({ length: MAX_HOPS_PER_BATCH }, () => hop),
  },
  applied: {
    type: 'applied',
    result: {
      revision: Number.MAX_SAFE_INTEGER,
      ok: false,
      interfaces: Array.from({ length: MAX_INTERFACES_PER_APPLY }, () => ({
        name: widest(15),
        state: 'removed' as const,
        driver: 'wireguard-go' as const,
        peers: MAX_PEERS_PER_INTERFACE,
        error: widest(MAX_OUTCOME_ERROR_TEXT),
      })),
      durationMs: MAX_APPLY_DURATION_MS - 0.1234567890123,
      outbounds: Array.from({ length: 250 }, () => ({
        tag: 'a'.repeat(64),
        state: 'failed' as const,
        error: widest(MAX_OUTCOME_ERROR_TEXT),
      })),
    },
  },
  'rule-hits': {
    type: 'rule-hits',
    rules: Array.from({ length: MAX_RULES_PER_NODE }, () => ({
      id: '00000000-0000-4000-8000-000000000000',
      packets: 2 ** 44,
    })),
  },
};

test('every message the schemas accept fits the size worked out for its type', () => {
  for (const [type, message] of Object.entries(largest)) {
    expect(agentMessageSchema.parse(message)).toEqual(message);
    expect({ type, bytes: bytes(message) <= AGENT_MESSAGE_BYTES[type as AgentMessage['type']] }).toEqual({
      type,
      bytes: true,
    });
  }
  const error = { type: 'error', error: widest(500) };
  expect(controllerMessageSchema.parse(error)).toEqual(error);
  expect(bytes(error)).toBeLessThanOrEqual(CONTROLLER_MESSAGE_BYTES.error);
});

test('a full counter batch of the widest peers fits the link limit, and it is the largest message', () => {
  const full = { ...largest.counters, peers: Array.from({ length: MAX_PEERS_PER_BATCH }, () => peer) };
  expect(agentMessageSchema.safeParse(full).success).toBe(true);
  expect(bytes(full)).toBeLessThanOrEqual(MAX_AGENT_MESSAGE_BYTES);
  expect(MAX_AGENT_MESSAGE_BYTES).toBe(AGENT_MESSAGE_BYTES.counters);
  // Worked out, not padded: the limit is within the escaping of the interface names of the widest batch.
  expect(MAX_AGENT_MESSAGE_BYTES - bytes(full)).toBeLessThanOrEqual(MAX_PEERS_PER_BATCH * 5 * 15);
  // One peer more is not a batch the contract accepts.
  expect(agentMessageSchema.safeParse({ ...full, peers: [...full.peers, peer] }).success).toBe(false);
});
