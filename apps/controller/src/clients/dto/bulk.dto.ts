import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsInt,
  IsObject,
  IsString,
  IsUUID,
  Length,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { OptionalNotNull } from '../../http/validators.js';
import { CLIENT_STATUSES, type ClientStatus } from '../client.entity.js';
import { CLIENT_LIMITS } from './client.dto.js';

/** Explicit ids one bulk request may carry; a larger selection is a filter. */
export const BULK_MAX_IDS = 10_000;
export const EXTEND_MAX_DAYS = 3650;

/** The list's filter (`GET /api/clients`' query parameters), as a bulk request's selection. */
export class ClientFilterDto {
  /** Case-insensitive text in name or note; all digits also matches telegramId exactly. */
  @OptionalNotNull()
  @IsString()
  @MaxLength(CLIENT_LIMITS.searchLength)
  search?: string;

  @OptionalNotNull()
  @IsIn(CLIENT_STATUSES)
  status?: ClientStatus;

  /** Clients whose groups include this one. */
  @OptionalNotNull()
  @IsString()
  @Length(1, CLIENT_LIMITS.groupLength)
  group?: string;

  /** Clients attached to this interface. */
  @OptionalNotNull()
  @IsUUID('all', { message: 'interfaceId must be an interface id (a UUID)' })
  interfaceId?: string;
}

/** Which clients: `ids`, or a `filter` (`{}` selects every client); exactly one of them. */
export class ClientSelectionDto {
  /** 1..10,000 client ids; an unknown one refuses the whole request (404). */
  @OptionalNotNull()
  @IsArray()
  @ArrayMinSize(1, { message: 'ids must name at least one client (or use filter)' })
  @ArrayMaxSize(BULK_MAX_IDS, { message: `ids may name at most ${BULK_MAX_IDS} clients; select more with filter` })
  @IsUUID('all', { each: true, message: 'each of ids must be a client id (a UUID)' })
  @ArrayUnique({ message: 'ids must not repeat a client' })
  ids?: string[];

  /** The clients the list would show with these query parameters, all pages. */
  @OptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => ClientFilterDto)
  filter?: ClientFilterDto;
}

export const BULK_SIMPLE_ACTIONS = ['enable', 'disable', 'delete'] as const;

export class BulkClientsDto extends ClientSelectionDto {
  @IsIn(BULK_SIMPLE_ACTIONS)
  action!: (typeof BULK_SIMPLE_ACTIONS)[number];
}

export class AdjustClientsDto extends ClientSelectionDto {
  /** Added to each limited quota (negative lowers it, never below 1 byte); unlimited quotas stay unlimited. */
  @IsInt()
  @Min(-Number.MAX_SAFE_INTEGER)
  @Max(Number.MAX_SAFE_INTEGER)
  deltaBytes!: number;
}

export class ExtendClientsDto extends ClientSelectionDto {
  @IsInt()
  @Min(1)
  @Max(EXTEND_MAX_DAYS)
  days!: number;

  /** expiry (default): days added to each client's expiry, clients that never expire left alone; now: every expiry becomes now + days. */
  @OptionalNotNull()
  @IsIn(['expiry', 'now'])
  from?: 'expiry' | 'now';
}

export const PURGEABLE_STATUSES = ['expired', 'exhausted', 'disabled'] as const;

export class PurgeClientsDto extends ClientSelectionDto {
  /** Statuses purged (default all three). */
  @OptionalNotNull()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayUnique()
  @IsIn(PURGEABLE_STATUSES, { each: true })
  statuses?: (typeof PURGEABLE_STATUSES)[number][];

  /** Only clients in that status for more than this many days (0: any time). */
  @IsInt()
  @Min(0)
  @Max(EXTEND_MAX_DAYS)
  olderThanDays!: number;
}

export class ClientInterfacesDto extends ClientSelectionDto {
  @IsArray()
  @ArrayMinSize(1, { message: 'interfaceIds must name at least one interface' })
  @ArrayMaxSize(CLIENT_LIMITS.interfaces)
  @IsUUID('all', { each: true, message: 'each of interfaceIds must be an interface id (a UUID)' })
  @ArrayUnique({ message: 'interfaceIds must not repeat an interface' })
  interfaceIds!: string[];
}

/** GET /api/clients/ids: the list's filter as query parameters. */
export class ClientIdsQuery extends ClientFilterDto {}
