import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * A bulk action's own record beside its BullMQ job (same id): what it does, how many clients it
 * selected and has done, and the nodes whose revision it moves once, at its end
 * (`nodesBumpedAt` set in the same transaction as the bump, so a retried end bumps nothing twice).
 */
export const ClientBulkJob = defineEntity({
  name: 'ClientBulkJob',
  tableName: 'client_bulk_jobs',
  properties: {
    id: p.uuid().primary(),
    action: p.string().length(32),
    params: p.json<Record<string, unknown>>(),
    /** Who started it (the acting user). */
    userId: p.uuid().nullable(),
    total: p.integer(),
    done: p.integer().default(0),
    /** Of those done, how many it changed (the rest needed nothing: already enabled, no expiry to extend). */
    changed: p.integer().default(0),
    /** Nodes of the selected clients (and of interfaces attached), bumped once when the job ends. */
    nodeIds: p.array().default([]),
    nodesBumpedAt: p.datetime().nullable(),
    /** The job's clock: every target value (an expiry from now, a reset time) is computed from it. */
    startedAt: p.datetime(),
    finishedAt: p.datetime().nullable(),
    error: p.string().length(1024).nullable(),
  },
});
export type ClientBulkJob = InferEntity<typeof ClientBulkJob>;

/**
 * The clients a bulk job selected, fixed when it was enqueued. A chunk marks its clients done in
 * the transaction that changes them: a chunk retried after a crash skips what committed.
 */
export const ClientBulkItem = defineEntity({
  name: 'ClientBulkItem',
  tableName: 'client_bulk_items',
  properties: {
    jobId: p.uuid().primary(),
    clientId: p.uuid().primary(),
    doneAt: p.datetime().nullable(),
  },
});
export type ClientBulkItem = InferEntity<typeof ClientBulkItem>;
