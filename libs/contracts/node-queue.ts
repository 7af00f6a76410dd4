import { z } from 'zod';
import { desiredStateSchema } from './desired-state.js';

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
  return `apply:${nodeId}:${revision}`;
}

export const applyJobSchema = desiredStateSchema;

export const interfaceOutcomeSchema = z.object({
  name: z.string(),
  /** up: matches the desired state; failed: could not be applied (see error); removed: no longer desired. */
  state: z.enum(['up', 'failed', 'removed']),
  /** How the interface exists on the host. */
  driver: z.enum(['kernel', 'wireguard-go', 'none']),
  peers: z.number().int().nonnegative(),
  error: z.string().optional(),
});
export type InterfaceOutcome = z.infer<typeof interfaceOutcomeSchema>;

/** What an apply job returns (and the agent reports over the WebSocket as `applied`). */
export const applyResultSchema = z.object({
  /** The revision the host now matches (an older job than what was applied returns the newer one). */
  revision: z.number().int().nonnegative(),
  /** True when every desired interface is up. */
  ok: z.boolean(),
  interfaces: z.array(interfaceOutcomeSchema),
  durationMs: z.number().nonnegative(),
});
export type ApplyResult = z.infer<typeof applyResultSchema>;
