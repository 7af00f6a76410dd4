import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsISO8601,
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
const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;
const DATE_TIME_MESSAGE = '$property must be an ISO 8601 date-time with a time zone, e.g. 2027-01-01T00:00:00Z';

/** Present but possibly invalid: validate. Absent: skip. Unlike IsOptional, null is validated (and refused). */
const Optional = () => ValidateIf((_object: unknown, value: unknown) => value !== undefined);

const trim = () => Transform(({ value }) => (typeof value === 'string' ? value.trim() : value));
const trimEach = () =>
  Transform(({ value }) => (Array.isArray(value) ? value.map((item) => (typeof item === 'string' ? item.trim() : item)) : value));

/** Telegram user ids are positive and exceed 2^31; JSON numbers are exact up to 2^53 - 1. */
const TelegramId = () => [IsInt(), Min(1), Max(Number.MAX_SAFE_INTEGER)];
const ByteCount = () => [IsInt(), Min(0), Max(Number.MAX_SAFE_INTEGER)];

function apply(...decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, key) => decorators.forEach((decorator) => decorator(target, key));
}

const Name = () =>
  apply(trim(), IsString(), Length(1, CLIENT_LIMITS.nameLength), Matches(NO_CONTROL, { message: 'name must not contain control characters' }));
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
const ExpiresAt = () =>
  apply(IsISO8601({ strict: true, strictSeparator: true }, { message: DATE_TIME_MESSAGE }), Matches(ISO_WITH_ZONE, { message: DATE_TIME_MESSAGE }));
const InterfaceIds = () =>
  apply(
    IsArray(),
    ArrayMinSize(1, { message: 'interfaceIds must name at least one interface' }),
    ArrayMaxSize(CLIENT_LIMITS.interfaces),
    IsUUID('all', { each: true, message: 'each of interfaceIds must be an interface id (a UUID)' }),
    ArrayUnique({ message: 'interfaceIds must not repeat an interface' }),
  );

export class CreateClientDto {
  @Name()
  name!: string;

  @Optional()
  @Note()
  note?: string;

  @Optional()
  @Groups()
  groups?: string[];

  /** null is the same as leaving it out: no Telegram account. */
  @IsOptional()
  @apply(...TelegramId())
  telegramId?: number | null;

  /** 0 = unlimited. */
  @Optional()
  @apply(...ByteCount())
  quotaBytes?: number;

  /** null or absent = never expires; must lie in the future. */
  @IsOptional()
  @ExpiresAt()
  expiresAt?: string | null;

  /** At most this many devices; 0 = unlimited. */
  @Optional()
  @IsInt()
  @Min(0)
  @Max(CLIENT_LIMITS.deviceLimit)
  deviceLimit?: number;

  @InterfaceIds()
  interfaceIds!: string[];

  /** The first devices; default one device named "device-1". */
  @Optional()
  @trimEach()
  @IsArray()
  @ArrayMinSize(1, { message: 'deviceNames must name at least one device (leave it out for the default)' })
  @ArrayMaxSize(CLIENT_LIMITS.deviceNames)
  @IsString({ each: true })
  @Length(1, CLIENT_LIMITS.deviceNameLength, { each: true })
  @Matches(NO_CONTROL, { each: true, message: 'deviceNames must not contain control characters' })
  @ArrayUnique((name: string) => name.toLowerCase(), { message: 'deviceNames must not repeat a name (case is ignored)' })
  deviceNames?: string[];

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

  /** false creates the client disabled. */
  @Optional()
  @IsBoolean()
  enabled?: boolean;

  /** 0 = unmetered. */
  @Optional()
  @apply(...ByteCount())
  rateBitsPerSec?: number;
}

export class UpdateClientDto {
  @Optional()
  @Name()
  name?: string;

  @Optional()
  @Note()
  note?: string;

  @Optional()
  @Groups()
  groups?: string[];

  /** null clears it. */
  @IsOptional()
  @apply(...TelegramId())
  telegramId?: number | null;

  @Optional()
  @apply(...ByteCount())
  quotaBytes?: number;

  /** null clears it (never expires); a past time expires the client at once. */
  @IsOptional()
  @ExpiresAt()
  expiresAt?: string | null;

  @Optional()
  @IsInt()
  @Min(0)
  @Max(CLIENT_LIMITS.deviceLimit)
  deviceLimit?: number;

  @Optional()
  @IsBoolean()
  enabled?: boolean;

  @Optional()
  @IsIn(RESET_CYCLES)
  resetCycle?: ResetCycle;

  @Optional()
  @apply(...ByteCount())
  rateBitsPerSec?: number;

  /** The full new set: new interfaces get an account per device, dropped ones lose theirs. */
  @Optional()
  @InterfaceIds()
  interfaceIds?: string[];
}

export class ListClientsQuery {
  /** Case-insensitive substring of name or note; all digits also matches telegramId exactly. */
  @Optional()
  @IsString()
  @MaxLength(CLIENT_LIMITS.searchLength)
  search?: string;

  @Optional()
  @IsIn(CLIENT_STATUSES)
  status?: ClientStatus;

  @Optional()
  @IsString()
  @Length(1, CLIENT_LIMITS.groupLength)
  group?: string;

  @Optional()
  @IsUUID('all', { message: 'interfaceId must be an interface id (a UUID)' })
  interfaceId?: string;

  @Optional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1_000_000_000)
  page?: number;

  @Optional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(CLIENT_LIMITS.perPage)
  perPage?: number;

  @Optional()
  @IsIn(CLIENT_SORTS)
  sort?: ClientSort;
  /** Opaque: the nextCursor of the previous answer; the next page starts after its row (instead of page). */
  @Optional()
  @IsString()
  @MaxLength(1024)
  cursor?: string;
}
