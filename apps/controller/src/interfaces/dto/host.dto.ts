import { IsBoolean, IsInt, IsOptional, IsString, Length, Matches, Max, MaxLength, Min } from 'class-validator';
import { IsHostAddress, OptionalNotNull } from '../../http/validators.js';

export const PRIORITY_BOUNDS = [-1_000_000, 1_000_000] as const;
const NO_CONTROL_CHARACTERS = /^[^\u0000-\u001f\u007f]*$/;

function rules(...decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, property) => {
    for (const decorator of decorators) decorator(target, property);
  };
}

const HostName = () =>
  rules(IsString(), Length(1, 64), Matches(NO_CONTROL_CHARACTERS, { message: 'name must not contain control characters' }));
const Address = () => rules(IsString(), MaxLength(255), IsHostAddress());
/** 0 means "the interface's listen port", so a host follows a port change of its interface. */
const Port = () => rules(IsInt(), Min(0), Max(65535));
const Priority = () => rules(IsInt(), Min(PRIORITY_BOUNDS[0]), Max(PRIORITY_BOUNDS[1]));

export class CreateHostDto {
  @IsString() interfaceId!: string;
  @HostName() name!: string;
  @Address() address!: string;
  @OptionalNotNull() @Port() port?: number;
  @OptionalNotNull() @Priority() priority?: number;
  @OptionalNotNull() @IsBoolean() enabled?: boolean;
}

/** A host stays with its interface: to move it, create one on the other interface. */
export class UpdateHostDto {
  @OptionalNotNull() @HostName() name?: string;
  @OptionalNotNull() @Address() address?: string;
  @OptionalNotNull() @Port() port?: number;
  @OptionalNotNull() @Priority() priority?: number;
  @OptionalNotNull() @IsBoolean() enabled?: boolean;
}

export class ListHostsQueryDto {
  @IsOptional()
  @IsString()
  interfaceId?: string;
}
