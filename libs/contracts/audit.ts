/**
 * The audit log's words, shared by the controller (apps/controller/src/audit) and the web panel
 * (its Audit page): docs/audit.md.
 */

/**
 * How the actor reached the panel: a session, an API token, a public route (sign-in), the host's
 * CLI, the panel itself, or the Telegram bot (an operator's registered chat: docs/telegram.md).
 */
export const AUDIT_VIA = ['session', 'token', 'public', 'cli', 'system', 'telegram'] as const;
export type AuditVia = (typeof AUDIT_VIA)[number];

/**
 * How the request ended: `pending` while it runs; `success`; `accepted` (202: the work goes on as
 * a job); `awaiting-code` (a sign-in whose password was right, asked for its two-factor code: not
 * signed in yet); `refused` (a 4xx: nothing changed); `failed` (a 5xx); `unknown` (the panel
 * stopped before answering: the change may or may not have happened).
 */
export const AUDIT_OUTCOMES = [
  'pending',
  'success',
  'accepted',
  'awaiting-code',
  'refused',
  'failed',
  'unknown',
] as const;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

/**
 * One field a change touched. `old` is absent when it was not known (a create; a route whose
 * target has no reader); `new` is absent when the field was removed (a delete). A secret field
 * carries `secret: true` and neither value.
 */
export interface AuditChange {
  field: string;
  old?: unknown;
  new?: unknown;
  secret?: true;
}

/** Placed where a secret's value would be inside a nested value (a field of an object in a list). */
export const AUDIT_SECRET_MARK = '[secret]';
