import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { AuditChange, AuditOutcome, AuditVia } from '#libs/contracts/audit.js';

/**
 * One recorded change (docs/audit.md): who, what, when, from where and how it ended. Written
 * before the change starts (`pending`) and settled when it is answered, so a crash in between
 * leaves an entry that says so instead of no entry. No foreign keys: an entry outlives the user,
 * token or client it names, and a restore keeps the entries it did not bring.
 */
export const AuditEntry = defineEntity({
  name: 'AuditEntry',
  tableName: 'audit_entries',
  indexes: [
    { properties: ['at', 'id'], name: 'audit_entries_at_id_index' },
    { properties: ['actorId', 'at'], name: 'audit_entries_actor_index' },
    { properties: ['targetType', 'targetId', 'at'], name: 'audit_entries_target_index' },
    { properties: ['action', 'at'], name: 'audit_entries_action_index' },
    // Maintenance settles abandoned entries: only the pending ones, a handful, are indexed.
    {
      name: 'audit_entries_pending_index',
      expression: `create index "audit_entries_pending_index" on "audit_entries" ("at") where "outcome" = 'pending'`,
    },
  ],
  properties: {
    id: p.uuid().primary(),
    /** When the request (or command) began. */
    at: p.datetime(),
    /** When it was answered; null while pending. */
    finishedAt: p.datetime().nullable(),
    actorId: p.uuid().nullable(),
    /** The user's name, or the name a sign-in gave; `cli` entries the host account. */
    actorName: p.string().length(256).nullable(),
    actorRole: p.string().length(16).nullable(),
    via: p.string().length(16).$type<AuditVia>(),
    /** The session or API token id. */
    credentialId: p.uuid().nullable(),
    /** The API token's name (sessions have none). */
    credentialName: p.string().length(128).nullable(),
    action: p.string().length(64),
    method: p.string().length(8),
    /** The route pattern (`/api/clients/{id}`), or the command (`warren token issue`). */
    route: p.string().length(128),
    targetType: p.string().length(32).nullable(),
    targetId: p.string().length(128).nullable(),
    targetName: p.string().length(256).nullable(),
    changes: p.json<AuditChange[]>(),
    outcome: p.string().length(16).$type<AuditOutcome>(),
    status: p.integer().nullable(),
    /** The refusal's message (what the caller was told), never a secret. */
    error: p.string().length(512).nullable(),
    /** Its stable code (audit-error-code.ts), for the web panel to word; null on success. */
    errorCode: p.string().length(32).nullable(),
    address: p.string().length(64).nullable(),
    userAgent: p.string().length(512).nullable(),
    requestId: p.string().length(128).nullable(),
  },
});
export type AuditEntry = InferEntity<typeof AuditEntry>;
