import { z } from 'zod';
import { interfaceName } from './desired-state.js';
import { applyResultSchema } from './node-queue.js';
import { revisionNumber, timestampMs } from './numbers.js';
import { MAX_RULES_PER_NODE } from './routing.js';
import { storableText } from './storable-text.js';
import { systemSampleSchema } from './system.js';

/**
 * The reporting channel: one WebSocket per agent at `<base>/api/agent/link`, authenticated by the
 * node credential (`Authorization: Bearer wnc_…`). The node a message speaks for is the node the
 * credential belongs to; no message carries a node id the controller would believe.
 */
export const AGENT_LINK_PATH = '/api/agent/link';
export const AGENT_ENROL_PATH = '/api/agent/enrol';

/** What the host can do; a missing capability is reported, never a crash. */
export const capabilitiesSchema = z.object({
  root: z.boolean(),
  /** `ip link add … type wireguard` works (kernel module). */
  wireguardKernel: z.boolean(),
  /** The userspace implementation is installed. */
  wireguardGo: z.boolean(),
  /** wireguard-tools (`wg`). */
  wg: z.boolean(),
  /** nftables (`nft`), for NAT. */
  nft: z.boolean(),
  /** iproute2 (`ip`). */
  ip: z.boolean(),
});
export type Capabilities = z.infer<typeof capabilitiesSchema>;

/**
 * Peers in one counter batch. A node with more peers that moved reports the rest in the next
 * batch (their bytes stay in the agent's baseline until then): see apps/agent/src/counters.
 */
export const MAX_PEERS_PER_BATCH = 100_000;
/**
 * Bytes one peer may report in one direction in one batch (16 TiB: 10 Gbit/s for almost four
 * hours). More after a long outage is carried to the next batches by the agent, so the sums the
 * controller adds (bigint columns) stay far from overflowing.
 */
export const MAX_PEER_BYTES_PER_BATCH = 2 ** 44;
/**
 * How far a batch's sequence number may run ahead of the last one the controller recorded for
 * the node. An agent sends the next number (one ahead); a number beyond the window would make
 * every later genuine batch look like a repeat.
 */
export const COUNTER_SEQ_WINDOW = 1000;

/** Where a peer's packets came from as `wg` prints it: 192.0.2.1:51820, [2001:db8::1]:51820, [fe80::1%eth0]:51820. */
export const peerEndpoint = z.string().regex(/^[0-9A-Za-z.:%[\]_@-]{1,64}$/, 'an ip:port endpoint');

/** One peer's traffic since the previous report, from the server's side of the tunnel. */
export const peerCountersSchema = z.object({
  interface: interfaceName,
  publicKey: z.string().regex(/^[A-Za-z0-9+/]{43}=$/, 'a WireGuard public key'),
  /** Bytes the server received from the peer (the client's upload) since the last report. */
  rxBytes: z.number().int().nonnegative().max(MAX_PEER_BYTES_PER_BATCH),
  /** Bytes the server sent to the peer (the client's download) since the last report. */
  txBytes: z.number().int().nonnegative().max(MAX_PEER_BYTES_PER_BATCH),
  /** Latest handshake, ms since the epoch; null when none yet. */
  lastHandshake: timestampMs.nullable(),
  /** Where the peer's packets last came from (ip:port), null when unknown. */
  endpoint: peerEndpoint.nullable(),
});
export type PeerCounters = z.infer<typeof peerCountersSchema>;

/**
 * Bytes one hop (outbound, by id) carried since the previous batch, by the node's nftables
 * counters of the hop's mark (apps/agent/src/host/routing/hop-counters.ts): up is what clients
 * sent into it, down what came back to them. A hop that moved nothing is left out.
 */
export const hopCountersSchema = z.object({
  id: z.uuid(),
  upBytes: z.number().int().nonnegative().max(MAX_PEER_BYTES_PER_BATCH),
  downBytes: z.number().int().nonnegative().max(MAX_PEER_BYTES_PER_BATCH),
});
export type HopCounters = z.infer<typeof hopCountersSchema>;

/** Hops a node runs at most (one per slot, libs/contracts/routing.ts). */
export const MAX_HOPS_PER_BATCH = 250;

export const MAX_VERSION_TEXT = 64;
export const MAX_GAPS = 50;
export const MAX_GAP_TEXT = 500;

export const agentMessageSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('hello'),
    version: storableText(MAX_VERSION_TEXT),
    capabilities: capabilitiesSchema,
    /** Human-readable reasons the host cannot apply what it may be asked to (empty when none). */
    gaps: z.array(storableText(MAX_GAP_TEXT)).max(MAX_GAPS),
    /** The revision the host matches now (0 when nothing applied yet). */
    appliedRevision: revisionNumber,
    /**
     * The agent applies deltas (libs/contracts/desired-delta.ts); absent from older agents, which
     * are sent the whole state every time.
     */
    deltas: z.boolean().optional(),
  }),
  /**
   * A delta did not fit the state the agent last applied (its base revision is not the agent's):
   * the controller sends the whole state. The delta's job fails too, so a lost message is caught
   * by the delivery sweep.
   */
  z.object({
    type: z.literal('gap'),
    /** The delta's revision. */
    revision: revisionNumber,
    /** The revision of the state the agent last applied (0 when none). */
    appliedRevision: revisionNumber,
  }),
  z.object({ type: z.literal('heartbeat'), at: timestampMs }),
  z.object({ type: z.literal('system'), sample: systemSampleSchema }),
  z.object({
    type: z.literal('counters'),
    /**
     * Grows by one per batch and never repeats, across reconnects and agent restarts; at most
     * COUNTER_SEQ_WINDOW above the last one recorded (the controller checks that part).
     */
    seq: z.number().int().positive(),
    /** When the counters were read, ms since the epoch. */
    at: timestampMs,
    /**
     * When the reading before this one was taken (the bytes moved between `since` and `at`): the
     * controller's current rate per client. Absent from older agents and on an agent's first
     * reading; the batch then carries no rate.
     */
    since: timestampMs.optional(),
    peers: z.array(peerCountersSchema).max(MAX_PEERS_PER_BATCH),
    /**
     * The hops' bytes since the previous batch, recorded with the peers' (once per seq). Absent
     * from older agents, and when no hop moved anything.
     */
    hops: z.array(hopCountersSchema).max(MAX_HOPS_PER_BATCH).optional(),
  }),
  z.object({ type: z.literal('applied'), result: applyResultSchema }),
  z.object({
    type: z.literal('rule-hits'),
    /**
     * Packets each routing rule (libs/contracts/routing.ts, by rule id) matched since the
     * previous report; rules with none are left out. Deltas: the controller adds them up.
     */
    rules: z
      .array(
        z.object({
          id: z.uuid(),
          packets: z
            .number()
            .int()
            .positive()
            .max(2 ** 44),
        }),
      )
      .max(MAX_RULES_PER_NODE),
  }),
]);
export type AgentMessage = z.infer<typeof agentMessageSchema>;

/** The longest reason the controller gives in an `error` message. */
export const MAX_ERROR_TEXT = 500;

export const controllerMessageSchema = z.discriminatedUnion('type', [
  /** Answer to hello: the last counter batch the controller has recorded for this node. */
  z.object({ type: z.literal('welcome'), nodeId: z.uuid(), countersSeq: z.number().int().nonnegative() }),
  /** The counter batch with this sequence number is recorded (or was already): drop it and older ones. */
  z.object({ type: z.literal('ack'), seq: z.number().int().positive() }),
  /** The message was refused; the link stays open unless the error is fatal. */
  z.object({ type: z.literal('error'), error: storableText(MAX_ERROR_TEXT) }),
]);
export type ControllerMessage = z.infer<typeof controllerMessageSchema>;

/** Enrolment: the one-time secret from node creation, exchanged for the node's own credential. */
export const enrolRequestSchema = z.object({ secret: z.string().min(1).max(200) });

export const queueAccessSchema = z.discriminatedUnion('kind', [
  /** A Redis user limited to this node's queue keys. */
  z.object({
    kind: z.literal('redis'),
    url: z.string(),
    username: z.string(),
    password: z.string(),
    prefix: z.string(),
  }),
  /**
   * BullMQ's PostgreSQL backend: only for the agent on the controller's own host, which is given
   * the database address locally (never over HTTP): see docs/agents.md.
   */
  z.object({ kind: z.literal('postgres') }),
]);
export type QueueAccess = z.infer<typeof queueAccessSchema>;

export const enrolResponseSchema = z.object({
  nodeId: z.uuid(),
  nodeName: z.string(),
  /** The node credential (`wnc_…`): shown once, stored hashed by the controller. */
  credential: z.string(),
  queue: queueAccessSchema,
});
export type EnrolResponse = z.infer<typeof enrolResponseSchema>;
