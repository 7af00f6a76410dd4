import { IsBoolean, IsInt, IsOptional, IsString, Length, Matches, Max, MaxLength, Min } from 'class-validator';
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
}

/** A host stays with its interface: to move it, create one on the other interface. */
export class UpdateHostDto {
  @ApiPropertyOptional(NAME_DOC) @OptionalNotNull() @HostName() name?: string;
  @ApiPropertyOptional(ADDRESS_DOC) @OptionalNotNull() @Address() address?: string;
  @ApiPropertyOptional(PORT_DOC) @OptionalNotNull() @Port() port?: number;
  @ApiPropertyOptional(PRIORITY_DOC) @OptionalNotNull() @Priority() priority?: number;
  @OptionalNotNull() @IsBoolean() enabled?: boolean;
}

export class ListHostsQueryDto {
  @ApiPropertyOptional({ description: 'Only the hosts of this interface (its id)' })
  @IsOptional()
  @IsString()
  interfaceId?: string;
}
