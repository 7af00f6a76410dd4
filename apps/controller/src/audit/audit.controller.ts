import { Controller, Query } from '@nestjs/common';
import { OWNER_ONLY } from '#libs/contracts/user-roles.js';
import { Route } from '../http/route.decorator.js';
import { AuditService } from './audit.service.js';
import { ListAuditQuery } from './dto/audit.dto.js';
import { AuditPageDto } from './dto/audit.response.js';

/** The audit log (docs/audit.md): the owner's, as every other user's actions and addresses are in it (docs/roles.md). */
@Controller()
export class AuditController {
  constructor(private readonly audit: AuditService) {}

  @Route({
    method: 'GET',
    path: 'logs',
    group: 'audit',
    roles: OWNER_ONLY,
    summary: 'The audit log, newest first, a page at a time: every change, sign-in and CLI action with its outcome',
    query: {
      actor: "a user's id or name (a failed sign-in's given name too)",
      targetType: 'the kind of target as paths name it: clients, devices, settings, tokens, backups, auth...',
      targetId: "the target's id (a backup's name)",
      action: 'e.g. clients.create, clients.update, auth.login, backups.restore',
      outcome: 'pending | success | accepted | refused | failed | unknown',
      from: 'entries at or after this ISO 8601 time',
      to: 'entries before this ISO 8601 time',
      perPage: 'page size, 1..200 (default 50)',
      cursor: "the previous answer's nextCursor, for the page after it (same filters)",
    },
    response: AuditPageDto,
  })
  list(@Query() query: ListAuditQuery) {
    return this.audit.list(query);
  }
}
