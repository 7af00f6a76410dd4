import { z } from 'zod';
import { applyResultSchema } from './node-queue.js';
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

/** One peer's traffic since the previous report, from the server's side of the tunnel. */
export const peerCountersSchema = z.object({
  interface: z.string().min(1).max(15),
  publicKey: z.string().length(44),
  /** Bytes the server received from the peer (the client's upload) since the last report. */
  rxBytes: z.number().int().nonnegative(),
  /** Bytes the server sent to the peer (the client's download) since the last report. */
  txBytes: z.number().int().nonnegative(),
  /** Latest handshake, ms since the epoch; null when none yet. */
  lastHandshake: z.number().int().nonnegative().nullable(),
  /** Where the peer's packets last came from (ip:port), null when unknown. */
  endpoint: z.string().max(64).nullable(),
});
export type PeerCounters = z.infer<typeof peerCountersSchema>;

export const agentMessageSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('hello'),
    version: z.string().max(64),
    capabilities: capabilitiesSchema,
    /** Human-readable reasons the host cannot apply what it may be asked to (empty when none). */
    gaps: z.array(z.string().max(500)).max(50),
    /** The revision the host matches now (0 when nothing applied yet). */
    appliedRevision: z.number().int().nonnegative(),
  }),
  z.object({ type: z.literal('heartbeat'), at: z.number().int().nonnegative() }),
  z.object({ type: z.literal('system'), sample: systemSampleSchema }),
  z.object({
    type: z.literal('counters'),
    /** Grows by one per batch and never repeats, across reconnects and agent restarts. */
    seq: z.number().int().positive(),
    /** When the counters were read, ms since the epoch. */
    at: z.number().int().nonnegative(),
    peers: z.array(peerCountersSchema).max(200_000),
  }),
  z.object({ type: z.literal('applied'), result: applyResultSchema }),
]);
export type AgentMessage = z.infer<typeof agentMessageSchema>;

export const controllerMessageSchema = z.discriminatedUnion('type', [
  /** Answer to hello: the last counter batch the controller has recorded for this node. */
  z.object({ type: z.literal('welcome'), nodeId: z.uuid(), countersSeq: z.number().int().nonnegative() }),
  /** The counter batch with this sequence number is recorded (or was already): drop it and older ones. */
  z.object({ type: z.literal('ack'), seq: z.number().int().positive() }),
  /** The message was refused; the link stays open unless the error is fatal. */
  z.object({ type: z.literal('error'), error: z.string() }),
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
