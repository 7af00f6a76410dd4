import { z } from 'zod';
import { desiredDeltaSchema } from './desired-delta.js';
import { desiredStateSchema } from './desired-state.js';
import { revisionNumber } from './numbers.js';
import { MAX_RULES_PER_NODE } from './routing.js';
import { storableText } from './storable-text.js';

/**
 * The work channel: one BullMQ queue per node (`node.<id>`), so a node's Redis ACL user can be
 * limited to its own queue's keys. BullMQ keeps every key of a queue under `<prefix>:<queue>:`.
 */
export function nodeQueueName(nodeId: string): string {
  return `node.${nodeId}`;
}

/** Reconcile the host to the desired state carried in the job. */
export const APPLY_JOB = 'apply';

/** One job per node and revision: enqueuing the same revision twice collapses into one job. */
export function applyJobId(nodeId: string, revision: number): string {
  return `${applyJobIdPrefix(nodeId)}${revision}`;
}

/** What every apply job id of the node starts with. */
export function applyJobIdPrefix(nodeId: string): string {
  return `apply:${nodeId}:`;
}

/**
 * The whole state a gap asked for (the agent could not apply the delta of this revision: see
 * desired-delta.ts) while that delta's job, under applyJobId, may still be running: its own id,
 * so it is not collapsed into it.
 */
export function resyncJobId(nodeId: string, revision: number): string {
  // BullMQ refuses custom ids with a colon unless they have exactly three parts.
  return `${applyJobId(nodeId, revision)}-full`;
}

/** An apply job carrying the whole state. */
export const applyJobSchema = desiredStateSchema;
/** An apply job carrying a delta (`kind: 'delta'`): only to agents that said they take them. */
export const applyDeltaJobSchema = desiredDeltaSchema;

/** Outcomes in one apply result: far more interfaces than a host runs (each needs its own port). */
export const MAX_INTERFACES_PER_APPLY = 4096;
/** The longest error text of one interface's outcome; the agent cuts longer ones. */
export const MAX_OUTCOME_ERROR_TEXT = 500;
/** The longest apply duration reported (a day); a longer apply reports this. */
export const MAX_APPLY_DURATION_MS = 86_400_000;
/** Peers of one interface: its subnet has at most 22 host bits. */
export const MAX_PEERS_PER_INTERFACE = 2 ** 22;

export const interfaceOutcomeSchema = z.object({
  name: z.string().min(1).max(15),
  /**
   * up: matches the desired state; down: matches it and is kept down (the node's tunnels are
   * stopped); failed: could not be applied (see error); removed: no longer desired.
   */
  state: z.enum(['up', 'down', 'failed', 'removed']),
  /** How the interface exists on the host. */
  driver: z.enum(['kernel', 'wireguard-go', 'none']),
  peers: z.number().int().nonnegative().max(MAX_PEERS_PER_INTERFACE),
  error: storableText(MAX_OUTCOME_ERROR_TEXT).optional(),
});
export type InterfaceOutcome = z.infer<typeof interfaceOutcomeSchema>;

export const outboundOutcomeSchema = z.object({
  tag: z.string().min(1).max(64),
  /** up: the hop runs as desired; failed: could not be set up (see error; tools missing is a failure too). */
  state: z.enum(['up', 'failed']),
  error: storableText(MAX_OUTCOME_ERROR_TEXT).optional(),
});
export type OutboundOutcome = z.infer<typeof outboundOutcomeSchema>;

/**
 * The node's policy routing (added with hops): up when the routing table, policy routes and the
 * domain resolver are in place; `rules` is how many rules could match something on this node.
 */
export const routingOutcomeSchema = z.object({
  state: z.enum(['up', 'failed']),
  rules: z.number().int().nonnegative().max(MAX_RULES_PER_NODE),
  error: storableText(MAX_OUTCOME_ERROR_TEXT).optional(),
});
export type RoutingOutcome = z.infer<typeof routingOutcomeSchema>;

/** What an apply job returns (and the agent reports over the WebSocket as `applied`). */
export const applyResultSchema = z.object({
  /** The revision the host now matches (an older job than what was applied returns the newer one). */
  revision: revisionNumber,
  /** True when every desired interface is up. */
  ok: z.boolean(),
  interfaces: z.array(interfaceOutcomeSchema).max(MAX_INTERFACES_PER_APPLY),
  durationMs: z.number().nonnegative().max(MAX_APPLY_DURATION_MS),
  /** Each desired outbound's hop on the host (absent from agents older than hops). */
  outbounds: z.array(outboundOutcomeSchema).max(250).optional(),
  /** The node's policy routing (absent from agents older than hops). */
  routing: routingOutcomeSchema.optional(),
});
export type ApplyResult = z.infer<typeof applyResultSchema>;
