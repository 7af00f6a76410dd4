import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { INTERFACE_MODES, type InterfaceMode } from '../interface.entity.js';
import {
  HOST_INTERFACE_NAME,
  INTERFACE_NAME,
  INTERFACE_NAME_MESSAGE,
  IsHostAddress,
  IsIpAddress,
  OptionalNotNull,
} from '../../http/validators.js';

export const MTU_BOUNDS = [576, 9000] as const;
export const MAX_DNS_SERVERS = 8;

/** Types only: bounds and cross-field rules come from validateAmneziaParams in the service. */
export class AmneziaParamsDto {
  @IsInt() jc!: number;
  @IsInt() jmin!: number;
  @IsInt() jmax!: number;
  @IsInt() s1!: number;
  @IsInt() s2!: number;
  @IsInt() h1!: number;
  @IsInt() h2!: number;
  @IsInt() h3!: number;
  @IsInt() h4!: number;
}

function rules(...decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, property) => {
    for (const decorator of decorators) decorator(target, property);
  };
}

// One rule per field, shared by creation and change so the two cannot drift apart.
const InterfaceName = () => rules(IsString(), Matches(INTERFACE_NAME, { message: INTERFACE_NAME_MESSAGE }));
const Mode = () => IsIn(INTERFACE_MODES, { message: 'mode must be standard or amnezia' });
const ListenPort = () => rules(IsInt(), Min(1), Max(65535));
/** Syntax and prefix bounds are checked by parseInterfaceSubnet, whose messages say what is wrong. */
const Subnet = () => rules(IsString(), MaxLength(18));
const EndpointHost = () => rules(IsString(), MaxLength(255), IsHostAddress());
const Mtu = () => rules(IsInt(), Min(MTU_BOUNDS[0]), Max(MTU_BOUNDS[1]));
const Dns = () =>
  rules(
    IsArray(),
    ArrayMaxSize(MAX_DNS_SERVERS),
    IsString({ each: true }),
    IsIpAddress({ each: true, message: 'dns must hold IPv4 or IPv6 addresses' }),
  );
/** null (or absent) means no NAT on this interface. */
const NatInterface = () =>
  rules(
    IsOptional(),
    IsString(),
    Matches(HOST_INTERFACE_NAME, { message: 'natInterface must be a host interface name of 1..15 characters (e.g. eth0)' }),
  );
const Awg = () => rules(IsObject(), ValidateNested(), Type(() => AmneziaParamsDto) as PropertyDecorator);

export class CreateInterfaceDto {
  /** Defaults to the local node. */
  @OptionalNotNull() @IsString() nodeId?: string;
  @InterfaceName() name!: string;
  @OptionalNotNull() @Mode() mode?: InterfaceMode;
  @ListenPort() listenPort!: number;
  @Subnet() subnet!: string;
  @EndpointHost() endpointHost!: string;
  @OptionalNotNull() @Mtu() mtu?: number;
  @OptionalNotNull() @Dns() dns?: string[];
  @NatInterface() natInterface?: string | null;
  @OptionalNotNull() @IsBoolean() enabled?: boolean;
  /** A full set of AmneziaWG parameters instead of generated ones (amnezia mode only). */
  @OptionalNotNull() @Awg() awg?: AmneziaParamsDto;
}

/**
 * What a change may touch. `nodeId` and `mode` are accepted only so that moving an interface or
 * switching its mode is refused with a reason rather than as an unknown field.
 */
export class UpdateInterfaceDto {
  @OptionalNotNull() @IsString() nodeId?: string;
  @OptionalNotNull() @InterfaceName() name?: string;
  @OptionalNotNull() @Mode() mode?: InterfaceMode;
  @OptionalNotNull() @ListenPort() listenPort?: number;
  @OptionalNotNull() @Subnet() subnet?: string;
  @OptionalNotNull() @EndpointHost() endpointHost?: string;
  @OptionalNotNull() @Mtu() mtu?: number;
  @OptionalNotNull() @Dns() dns?: string[];
  @NatInterface() natInterface?: string | null;
  @OptionalNotNull() @IsBoolean() enabled?: boolean;
  @OptionalNotNull() @Awg() awg?: AmneziaParamsDto;
}

export class ListInterfacesQueryDto {
  @IsOptional()
  @IsString()
  nodeId?: string;
}
