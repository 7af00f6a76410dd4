import { Type } from 'class-transformer';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsISO8601, IsString, Length, Matches, Max, MaxLength, Min, ValidateIf } from 'class-validator';
import { AUDIT_OUTCOMES, type AuditOutcome } from '#libs/contracts/audit.js';

const Optional = () => ValidateIf((_object: unknown, value: unknown) => value !== undefined);

const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}:?\d{2})$/;
const DATE_TIME_MESSAGE = '$property must be an ISO 8601 date-time with a time zone, e.g. 2027-01-01T00:00:00Z';
/** Action and target names are words of the route table: letters, digits, `.`, `-`, `_`. */
const WORD = /^[A-Za-z0-9._-]+$/;

export const AUDIT_PAGE_SIZE = { default: 50, max: 200 } as const;

/** GET /api/logs: every filter optional, combined with AND; newest first. */
export class ListAuditQuery {
  /** A user's id, or a user name (exact, ignoring case; a failed sign-in's given name too). */
  @Optional()
  @IsString()
  @Length(1, 256)
  actor?: string;

  /** The kind of target, as the path names it: clients, devices, settings, tokens, backups, auth... */
  @Optional()
  @IsString()
  @Length(1, 32)
  @Matches(WORD, { message: 'targetType must be letters, digits, ".", "-" or "_"' })
  targetType?: string;

  /** The target's id (a backup's name). */
  @Optional()
  @IsString()
  @Length(1, 128)
  targetId?: string;

  /** e.g. clients.create, clients.update, auth.login, backups.restore (docs/audit.md lists how they are named). */
  @Optional()
  @IsString()
  @Length(1, 64)
  @Matches(WORD, { message: 'action must be letters, digits, ".", "-" or "_"' })
  action?: string;

  @Optional()
  @IsIn(AUDIT_OUTCOMES)
  outcome?: AuditOutcome;

  /** Entries at or after this time. */
  @Optional()
  @IsISO8601({ strict: true, strictSeparator: true }, { message: DATE_TIME_MESSAGE })
  @Matches(ISO_WITH_ZONE, { message: DATE_TIME_MESSAGE })
  from?: string;

  /** Entries before this time. */
  @Optional()
  @IsISO8601({ strict: true, strictSeparator: true }, { message: DATE_TIME_MESSAGE })
  @Matches(ISO_WITH_ZONE, { message: DATE_TIME_MESSAGE })
  to?: string;

  @ApiPropertyOptional({ default: AUDIT_PAGE_SIZE.default })
  @Optional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(AUDIT_PAGE_SIZE.max)
  perPage?: number;

  /** nextCursor of the previous answer: the page after its last entry (same filters). */
  @Optional()
  @IsString()
  @MaxLength(512)
  cursor?: string;
}
