import type { RouteSpec } from '../http/route.decorator.js';

/** What the audit log records of a route: derived from its route-table entry (docs/audit.md). */
export interface AuditedRoute {
  action: string;
  /** The resource as the path names it (`clients`), or the entry's `audit.target`. */
  targetType: string;
  /** The path parameter naming the target (`id`, a backup's `name`); null when the path has none. */
  idParam: string | null;
  /** Whether the body's fields are recorded. */
  fields: boolean;
  /** The target is the caller's own user. */
  self: boolean;
  /** Written once, in the change's own transaction (RouteAudit.inChangeTransaction). */
  inChangeTransaction: boolean;
  /** Written once, before the answer is sent (RouteAudit.beforeAnswer). */
  beforeAnswer: boolean;
  /** The success status the route declares (what a change that committed is recorded with). */
  status: number;
  /** The route pattern as the docs print it: `/api/clients/{id}`. */
  route: string;
}

const VERBS: Record<string, string> = { POST: 'create', PATCH: 'update', PUT: 'replace', DELETE: 'delete' };

/**
 * Null for a route that changes nothing (every GET, and an entry that says `audit: false`); else
 * how its calls are recorded. Derived names follow the path: `POST clients` is `clients.create`,
 * `PATCH clients/:id` `clients.update`, `POST clients/:id/reset` `clients.reset`, `POST auth/login`
 * `auth.login`; an entry's `audit.action` and `audit.target` win.
 */
export function auditedRoute(spec: RouteSpec): AuditedRoute | null {
  if (spec.method === 'GET' || spec.audit === false) return null;
  const segments = spec.path.split('/').filter(Boolean);
  const literals = segments.filter((segment) => !segment.startsWith(':'));
  const lastParam = segments.findLastIndex((segment) => segment.startsWith(':'));
  const endsWithParam = lastParam === segments.length - 1;
  let action: string;
  if (endsWithParam || (spec.method !== 'POST' && lastParam < 0) || (lastParam < 0 && literals.length === 1))
    action = `${literals.join('.')}.${VERBS[spec.method]}`;
  else action = literals.join('.');
  const resource = lastParam > 0 ? segments[lastParam - 1] : literals[0];
  return {
    action: spec.audit?.action ?? action,
    targetType: spec.audit?.target ?? resource,
    idParam: lastParam >= 0 ? segments[lastParam].slice(1) : null,
    fields: spec.audit?.fields !== false,
    self: spec.audit?.self === true,
    inChangeTransaction: spec.audit?.inChangeTransaction === true,
    beforeAnswer: spec.audit?.beforeAnswer === true,
    status: spec.status ?? 200,
    route: `/api/${segments.map((segment) => (segment.startsWith(':') ? `{${segment.slice(1)}}` : segment)).join('/')}`,
  };
}
