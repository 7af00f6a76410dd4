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
import { Transform } from 'class-transformer';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsHostAddress, OptionalNotNull } from '../../http/validators.js';

export const PRIORITY_BOUNDS = [-1_000_000, 1_000_000] as const;
const NO_CONTROL_CHARACTERS = /^[^\u0000-\u001f\u007f]*$/;

function rules(...decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, property) => {
    for (const decorator of decorators) decorator(target, property);
  };
}

const HostName = () =>
  rules(
    IsString(),
    Length(1, 64),
    Matches(NO_CONTROL_CHARACTERS, { message: 'name must not contain control characters' }),
  );
const Address = () => rules(IsString(), MaxLength(255), IsHostAddress());
/** 0 means "the interface's listen port", so a host follows a port change of its interface. */
const Port = () => rules(IsInt(), Min(0), Max(65535));
const Priority = () => rules(IsInt(), Min(PRIORITY_BOUNDS[0]), Max(PRIORITY_BOUNDS[1]));

/** Tags: trimmed, 1..32 characters each, at most 16 per host, no repeats. */
export const TAG_LIMITS = { length: 32, perHost: 16 } as const;
const trimEach = () =>
  Transform(({ value }: { value: unknown }) =>
    Array.isArray(value) ? value.map((item) => (typeof item === 'string' ? item.trim() : item)) : value,
  );
const Tags = () =>
  rules(
    trimEach(),
    IsArray(),
    ArrayMaxSize(TAG_LIMITS.perHost),
    IsString({ each: true }),
    Length(1, TAG_LIMITS.length, { each: true }),
    Matches(NO_CONTROL_CHARACTERS, { each: true, message: 'tags must not contain control characters' }),
    ArrayUnique({ message: 'tags must not repeat a tag' }),
  );
/** At most this many hosts or groups in one bulk or reorder call. */
export const SELECTION_MAX = 1000;
const Ids = (what: string) =>
  rules(
    IsArray(),
    ArrayMinSize(1),
    ArrayMaxSize(SELECTION_MAX),
    IsUUID('all', { each: true, message: `each of ids must be a ${what} id (a UUID)` }),
    ArrayUnique({ message: `ids must not repeat a ${what}` }),
  );

// Descriptions only: the schema takes types and rules from the declarations (docs/dto-metadata.ts).
const NAME_DOC = {
  description: 'Unique per interface regardless of case; no control characters',
};
const ADDRESS_DOC = { description: 'An IPv4 or IPv6 address or a hostname' };
const PORT_DOC = {
  description: "0: the interface's listen port",
} as const;
const PRIORITY_DOC = {
  description: 'Higher first',
} as const;

export class CreateHostDto {
  @ApiProperty({ description: 'The id of the interface' }) @IsString() interfaceId!: string;
  @ApiProperty(NAME_DOC) @HostName() name!: string;
  @ApiProperty(ADDRESS_DOC) @Address() address!: string;
  @ApiPropertyOptional({ ...PORT_DOC, default: 0 }) @OptionalNotNull() @Port() port?: number;
  @ApiPropertyOptional({ ...PRIORITY_DOC, default: 0 }) @OptionalNotNull() @Priority() priority?: number;
  @ApiPropertyOptional({ default: true }) @OptionalNotNull() @IsBoolean() enabled?: boolean;
  @ApiPropertyOptional({ description: 'Its host group (GET /api/hosts/groups); none by default', nullable: true })
  @IsOptional()
  @IsUUID('all', { message: 'groupId must be a host group id (a UUID)' })
  groupId?: string | null;
  @ApiPropertyOptional({ description: 'Labels; no effect on configs' })
  @OptionalNotNull()
  @Tags()
  tags?: string[];
}

/** A host stays with its interface: to move it, create one on the other interface. */
export class UpdateHostDto {
  @ApiPropertyOptional(NAME_DOC) @OptionalNotNull() @HostName() name?: string;
  @ApiPropertyOptional(ADDRESS_DOC) @OptionalNotNull() @Address() address?: string;
  @ApiPropertyOptional(PORT_DOC) @OptionalNotNull() @Port() port?: number;
  @ApiPropertyOptional(PRIORITY_DOC) @OptionalNotNull() @Priority() priority?: number;
  @OptionalNotNull() @IsBoolean() enabled?: boolean;
  @ApiPropertyOptional({ description: 'Its host group; null: none', nullable: true })
  @IsOptional()
  @IsUUID('all', { message: 'groupId must be a host group id (a UUID)' })
  groupId?: string | null;
  @ApiPropertyOptional({ description: 'Replaces its tags' })
  @OptionalNotNull()
  @Tags()
  tags?: string[];
}

export const HOST_BULK_ACTIONS = ['enable', 'disable', 'delete', 'tag', 'untag'] as const;
export type HostBulkAction = (typeof HOST_BULK_ACTIONS)[number];

/** One action on several hosts: every id must exist, or nothing changes. */
export class HostBulkDto {
  @ApiProperty({ description: 'Host ids' }) @Ids('host') ids!: string[];
  @ApiProperty({ enum: HOST_BULK_ACTIONS }) @IsIn(HOST_BULK_ACTIONS) action!: HostBulkAction;
  @ApiPropertyOptional({ description: 'tag / untag: the tags added to or removed from each' })
  @ValidateIf((dto: HostBulkDto) => dto.action === 'tag' || dto.action === 'untag')
  @Tags()
  @ArrayMinSize(1)
  tags?: string[];
}

/** Ids in their new order: positions 0.. in this order; ones not named keep theirs. */
export class HostOrderDto {
  @ApiProperty({ description: 'Host ids, first first' }) @Ids('host') ids!: string[];
}

const GroupName = () =>
  rules(
    Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value)),
    IsString(),
    Length(1, 64),
    Matches(NO_CONTROL_CHARACTERS, { message: 'name must not contain control characters' }),
  );
const ClientGroups = () =>
  rules(
    trimEach(),
    IsArray(),
    ArrayMaxSize(100),
    IsString({ each: true }),
    Length(1, 64, { each: true }),
    ArrayUnique({ message: 'clientGroups must not repeat a group' }),
  );
const CLIENT_GROUPS_DOC = {
  description: "Client group names (clients' groups); its hosts go only to clients in one of them. Empty: everyone",
};

export class CreateHostGroupDto {
  @ApiProperty({ description: 'Unique regardless of case' }) @GroupName() name!: string;
  @ApiPropertyOptional({ ...CLIENT_GROUPS_DOC, default: [] })
  @OptionalNotNull()
  @ClientGroups()
  clientGroups?: string[];
  @ApiPropertyOptional({ description: 'Hosts put in the group' })
  @OptionalNotNull()
  @Ids('host')
  hostIds?: string[];
}

/** A group replaced: its name and its ties (clientGroups omitted: none). */
export class ReplaceHostGroupDto {
  @ApiProperty({ description: 'Unique regardless of case' }) @GroupName() name!: string;
  @ApiPropertyOptional({ ...CLIENT_GROUPS_DOC, default: [] })
  @OptionalNotNull()
  @ClientGroups()
  clientGroups?: string[];
}

/** Several hosts into one group (or out of any, with groupId null or absent). */
export class HostGroupBulkDto {
  @ApiPropertyOptional({ description: 'The host group; null or absent: the hosts leave their groups', nullable: true })
  @IsOptional()
  @IsUUID('all', { message: 'groupId must be a host group id (a UUID)' })
  groupId?: string | null;
  @ApiProperty({ description: 'Host ids' }) @Ids('host') hostIds!: string[];
}

export class HostGroupOrderDto {
  @ApiProperty({ description: 'Host group ids, first first' }) @Ids('host group') ids!: string[];
}

export class ListHostsQueryDto {
  @ApiPropertyOptional({ description: 'Only the hosts of this interface (its id)' })
  @IsOptional()
  @IsString()
  interfaceId?: string;
}
