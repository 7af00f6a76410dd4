import { Injectable } from '@nestjs/common';
import { badRequest } from '../http/api-error.js';
import { decodeAuditCursor, encodeAuditCursor } from './audit-cursor.js';
import { AuditRepository, type AuditRow } from './audit.repository.js';
import { AUDIT_PAGE_SIZE, type ListAuditQuery } from './dto/audit.dto.js';
import type { AuditEntryDto, AuditPageDto } from './dto/audit.response.js';

/** How long an entry may stay pending before it is taken for one a stopped panel left (maintenance). */
export const ABANDONED_AFTER_MS = 60 * 60 * 1000;

const view = (row: AuditRow): AuditEntryDto => ({
  id: row.id,
  at: row.at.toISOString(),
  finishedAt: row.finishedAt?.toISOString() ?? null,
  actor: {
    id: row.actorId,
    name: row.actorName,
    role: row.actorRole,
    via: row.via,
    credentialId: row.credentialId,
    credentialName: row.credentialName,
  },
  action: row.action,
  method: row.method,
  route: row.route,
  target: { type: row.targetType, id: row.targetId, name: row.targetName },
  changes: row.changes,
  outcome: row.outcome,
  status: row.status,
  error: row.error,
  errorCode: row.errorCode,
  address: row.address,
  userAgent: row.userAgent,
  requestId: row.requestId,
});

/** Reading the audit log, and its upkeep (retention, abandoned entries): docs/audit.md. */
@Injectable()
export class AuditService {
  constructor(private readonly repository: AuditRepository) {}

  async list(query: ListAuditQuery): Promise<AuditPageDto> {
    const perPage = query.perPage ?? AUDIT_PAGE_SIZE.default;
    const from = query.from === undefined ? undefined : new Date(query.from);
    const to = query.to === undefined ? undefined : new Date(query.to);
    if (from && to && from >= to) throw badRequest('from must be before to', 'from');
    const rows = await this.repository.list({
      actor: query.actor,
      targetType: query.targetType,
      targetId: query.targetId,
      action: query.action,
      outcome: query.outcome,
      from,
      to,
      after: query.cursor === undefined ? undefined : decodeAuditCursor(query.cursor),
      limit: perPage + 1,
    });
    const page = rows.slice(0, perPage);
    const last = page.at(-1);
    return {
      items: page.map(view),
      perPage,
      ...(rows.length > perPage && last ? { nextCursor: encodeAuditCursor({ at: last.atKey, id: last.id }) } : {}),
    };
  }

  /**
   * The periodic upkeep: entries older than `retentionDays` go; entries pending for longer than
   * any request runs are settled as `unknown` (their panel stopped before answering).
   */
  async maintain(retentionDays: number, now = new Date()): Promise<{ pruned: number; abandoned: number }> {
    const abandoned = await this.repository.settleAbandoned(new Date(now.getTime() - ABANDONED_AFTER_MS));
    const pruned = await this.repository.prune(new Date(now.getTime() - retentionDays * 86_400_000));
    return { pruned, abandoned };
  }
}
