import { Transform, Type } from 'class-transformer';
import { ApiPropertyOptional, OmitType, PartialType } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import { IsDateTimeWithZone } from '../../http/validators.js';
import { CLIENT_STATUSES, RESET_CYCLES, type ClientStatus, type ResetCycle } from '../client.entity.js';

/** Bounds of the client fields; docs/clients.md lists the same. */
export const CLIENT_LIMITS = {
  nameLength: 128,
  noteLength: 512,
  groupLength: 64,
  groups: 20,
  deviceNameLength: 64,
  deviceLimit: 50,
  /** Device names one creation may carry (with deviceLimit 0 = unlimited). */
  deviceNames: 50,
  interfaces: 32,
  durationDays: 3650,
  durationHours: 23,
  perPage: 200,
  searchLength: 128,
} as const;

export const CLIENT_SORTS = ['newest', 'oldest', 'name', 'traffic', 'remaining', 'expiry'] as const;
export type ClientSort = (typeof CLIENT_SORTS)[number];

const NO_CONTROL = /^[^\u0000-\u001f\u007f]*$/;

/** Present but possibly invalid: validate. Absent: skip. Unlike IsOptional, null is validated (and refused). */
const Optional = () => ValidateIf((_object: unknown, value: unknown) => value !== undefined);

const trim = () => Transform(({ value }) => (typeof value === 'string' ? value.trim() : value));
const trimEach = () =>
  Transform(({ value }) =>
    Array.isArray(value) ? value.map((item) => (typeof item === 'string' ? item.trim() : item)) : value,
  );

/** Telegram user ids are positive and exceed 2^31; JSON numbers are exact up to 2^53 - 1. */
const TelegramId = () => [IsInt(), Min(1), Max(Number.MAX_SAFE_INTEGER)];
const ByteCount = () => [IsInt(), Min(0), Max(Number.MAX_SAFE_INTEGER)];

function apply(...decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, key) => decorators.forEach((decorator) => decorator(target, key));
}

const Name = () =>
  apply(
    trim(),
    IsString(),
    Length(1, CLIENT_LIMITS.nameLength),
    Matches(NO_CONTROL, { message: 'name must not contain control characters' }),
  );
const Note = () => apply(IsString(), MaxLength(CLIENT_LIMITS.noteLength));
const Groups = () =>
  apply(
    trimEach(),
    IsArray(),
    ArrayMaxSize(CLIENT_LIMITS.groups),
    IsString({ each: true }),
    Length(1, CLIENT_LIMITS.groupLength, { each: true }),
    Matches(NO_CONTROL, { each: true, message: 'groups must not contain control characters' }),
    ArrayUnique({ message: 'groups must not repeat a group' }),
  );
const ExpiresAt = IsDateTimeWithZone;
const InterfaceIds = () =>
  apply(
    IsArray(),
    ArrayMinSize(1, { message: 'interfaceIds must name at least one interface' }),
    ArrayMaxSize(CLIENT_LIMITS.interfaces),
    IsUUID('all', { each: true, message: 'each of interfaceIds must be an interface id (a UUID)' }),
    ArrayUnique({ message: 'interfaceIds must not repeat an interface' }),
  );

/**
 * The create body. Its schema is derived (docs/dto-metadata.ts): types, optionality and these
 * comments from the declarations, bounds and patterns from the validators below.
 */
export class CreateClientDto {
  /** Trimmed; no control characters; default tg-<telegramId>, or client- and six random letters and digits (the contract's create body has none). */
  @Optional()
  @Name()
  name?: string;

  @Optional()
  @Note()
  note?: string;

  /** Each one trimmed, 1..64 characters, no control characters. */
  @Optional()
  @Groups()
  groups?: string[];

  /** null: no Telegram account (leaving it out on creation, clearing it on a change). */
  @IsOptional()
  @apply(...TelegramId())
  telegramId?: number | null;

  /** 0 = unlimited. */
  @Optional()
  @apply(...ByteCount())
  quotaBytes?: number;

  /** With a time zone; null = never expires. A past time is refused on creation and expires the client at once on a change. */
  @IsOptional()
  @ExpiresAt()
  expiresAt?: string | null;

  /** At most this many devices; 0 = unlimited. */
  @Optional()
  @IsInt()
  @Min(0)
  @Max(CLIENT_LIMITS.deviceLimit)
  deviceLimit?: number;

  /** Required unless the client's first defined group gives interfaces (docs/groups.md). */
  @Optional()
  @InterfaceIds()
  interfaceIds?: string[];

  /** The first devices (default one named "device-1"); names unique regardless of case. */
  @Optional()
  @trimEach()
  @IsArray()
  @ArrayMinSize(1, { message: 'deviceNames must name at least one device (leave it out for the default)' })
  @ArrayMaxSize(CLIENT_LIMITS.deviceNames)
  @IsString({ each: true })
  @Length(1, CLIENT_LIMITS.deviceNameLength, { each: true })
  @Matches(NO_CONTROL, { each: true, message: 'deviceNames must not contain control characters' })
  @ArrayUnique((name: unknown) => (typeof name === 'string' ? name.toLowerCase() : name), {
    message: 'deviceNames must not repeat a name (case is ignored)',
  })
  deviceNames?: string[];

  /** The expiry clock starts at the first handshake. */
  @Optional()
  @IsBoolean()
  startOnFirstUse?: boolean;

  @Optional()
  @IsInt()
  @Min(0)
  @Max(CLIENT_LIMITS.durationDays)
  durationDays?: number;

  @Optional()
  @IsInt()
  @Min(0)
  @Max(CLIENT_LIMITS.durationHours)
  durationHours?: number;

  @Optional()
  @IsIn(RESET_CYCLES)
  resetCycle?: ResetCycle;

  /** false: disabled. */
  @Optional()
  @IsBoolean()
  enabled?: boolean;

  /** 0 = unmetered. */
  @Optional()
  @apply(...ByteCount())
  rateBitsPerSec?: number;
}

/** What a creation sets once: the first devices and the expiry given as a duration. */
const CREATE_ONLY = ['deviceNames', 'startOnFirstUse', 'durationDays', 'durationHours'] as const;

/**
 * A change: any field of the create body but the creation-only ones, each optional. Absent fields
 * keep their value; null is refused except where the create body accepts it (skipNullProperties:
 * false keeps `name: null` from slipping past the rules).
 */
export class UpdateClientDto extends PartialType(OmitType(CreateClientDto, CREATE_ONLY), {
  skipNullProperties: false,
}) {
  @ApiPropertyOptional({ description: 'Trimmed; no control characters' })
  declare name?: string;

  @ApiPropertyOptional({
    description: 'The full new set: new interfaces get an account per device, dropped ones lose theirs',
  })
  declare interfaceIds?: string[];
}

export class ListClientsQuery {
  /** Case-insensitive text in name or note; all digits also matches telegramId exactly. */
  @Optional()
  @IsString()
  @MaxLength(CLIENT_LIMITS.searchLength)
  search?: string;

  @Optional()
  @IsIn(CLIENT_STATUSES)
  status?: ClientStatus;

  /** Clients whose groups include this one. */
  @Optional()
  @IsString()
  @Length(1, CLIENT_LIMITS.groupLength)
  group?: string;

  /** Clients attached to this interface. */
  @Optional()
  @IsUUID('all', { message: 'interfaceId must be an interface id (a UUID)' })
  interfaceId?: string;

  @ApiPropertyOptional({ default: 1 })
  @Optional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1_000_000_000)
  page?: number;

  @ApiPropertyOptional({ default: 25 })
  @Optional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(CLIENT_LIMITS.perPage)
  perPage?: number;

  @ApiPropertyOptional({ default: 'newest' })
  @Optional()
  @IsIn(CLIENT_SORTS)
  sort?: ClientSort;

  /** nextCursor of the previous answer: the page after its last row, at any depth for the same cost (instead of page). */
  @Optional()
  @IsString()
  @MaxLength(1024)
  cursor?: string;
}
