import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsString,
  IsUUID,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { CLIENT_LIMITS } from '../../clients/dto/client.dto.js';
import { ClientSelectionDto, EXTEND_MAX_DAYS } from '../../clients/dto/bulk.dto.js';
import { OptionalNotNull } from '../../http/validators.js';

const NO_CONTROL = /^[^\u0000-\u001f\u007f]*$/;
const trim = () => Transform(({ value }) => (typeof value === 'string' ? value.trim() : value));

function GroupName(): PropertyDecorator {
  return (target, key) => {
    for (const decorator of [
      trim(),
      IsString(),
      Length(1, CLIENT_LIMITS.groupLength),
      Matches(NO_CONTROL, { message: `${String(key)} must not contain control characters` }),
    ])
      decorator(target, key);
  };
}

/** A group and the defaults its new members take; POST /api/groups makes it or replaces its defaults. */
export class SaveGroupDto {
  /** Trimmed, 1..64 characters: what clients' `groups` name. */
  @GroupName()
  name!: string;

  @OptionalNotNull()
  @IsString()
  @MaxLength(CLIENT_LIMITS.noteLength)
  note?: string;

  /** New members' quota; 0 = unlimited (default). */
  @OptionalNotNull()
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  quotaBytes?: number;

  /** New members expire this many days after creation; 0 = never (default). */
  @OptionalNotNull()
  @IsInt()
  @Min(0)
  @Max(EXTEND_MAX_DAYS)
  expiryDays?: number;

  /** New members' device limit; 0 = unlimited; default 1. */
  @OptionalNotNull()
  @IsInt()
  @Min(0)
  @Max(CLIENT_LIMITS.deviceLimit)
  deviceLimit?: number;

  /** Interfaces a new member is attached to when its creation names none; each must exist. */
  @OptionalNotNull()
  @IsArray()
  @ArrayMaxSize(CLIENT_LIMITS.interfaces)
  @IsUUID('all', { each: true, message: 'each of interfaceIds must be an interface id (a UUID)' })
  @ArrayUnique({ message: 'interfaceIds must not repeat an interface' })
  interfaceIds?: string[];

  /** New members' speed limit in bits per second; 0 = unmetered (default). */
  @OptionalNotNull()
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  rateBitsPerSec?: number;
}

export class GroupNameDto {
  @GroupName()
  name!: string;
}

export class RenameGroupDto {
  @GroupName()
  name!: string;

  /** The new name; members' `groups` are rewritten in one statement. */
  @GroupName()
  newName!: string;
}

export class AssignGroupDto extends ClientSelectionDto {
  /** The group the selected clients join (or leave, with remove). */
  @GroupName()
  name!: string;

  /** true: the selected clients leave the group instead. */
  @OptionalNotNull()
  @IsBoolean()
  remove?: boolean;
}

export const GROUP_ACTIONS = ['enable', 'disable', 'delete', 'reset', 'extend', 'adjust'] as const;

/** A bulk action on every member of a group (as the /api/clients/... bulk routes, selection = the group). */
export class GroupActionDto {
  @GroupName()
  name!: string;

  @IsIn(GROUP_ACTIONS)
  action!: (typeof GROUP_ACTIONS)[number];

  /** extend: days to add (1..3650). */
  @OptionalNotNull()
  @IsInt()
  @Min(1)
  @Max(EXTEND_MAX_DAYS)
  days?: number;

  /** extend: from each expiry (default) or from now. */
  @OptionalNotNull()
  @IsIn(['expiry', 'now'])
  from?: 'expiry' | 'now';

  /** adjust: bytes added to each limited quota (negative lowers it). */
  @OptionalNotNull()
  @IsInt()
  @Min(-Number.MAX_SAFE_INTEGER)
  @Max(Number.MAX_SAFE_INTEGER)
  deltaBytes?: number;
}
