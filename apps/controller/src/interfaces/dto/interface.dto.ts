import { Type } from 'class-transformer';
import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
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
import {
  INTERFACE_MODES,
  INTERFACE_PROTOCOLS,
  type InterfaceMode,
  type InterfaceProtocol,
} from '../interface.entity.js';
import { TUNNEL_NAME, TUNNEL_NAME_RULE, UPLINK_NAME, UPLINK_NAME_RULE } from '#libs/contracts/interface-names.js';
import { IsHostAddress, IsIpAddress, OptionalNotNull } from '../../http/validators.js';

export const MTU_BOUNDS = [576, 9000] as const;
export const MAX_DNS_SERVERS = 8;
/**
 * Resolvers profiles name when the operator gives none: public ones that answer from anywhere.
 * Not the gateway: nothing on a node answers DNS there, so a full-tunnel client would connect and
 * then resolve nothing. An operator who runs a resolver (on the gateway or elsewhere) sets `dns`.
 */
export const DEFAULT_DNS: readonly string[] = ['1.1.1.1', '1.0.0.1'];

// Descriptions only: the schema takes types and rules from the declarations (docs/dto-metadata.ts).
const DOC = {
  nodeId: { description: 'The id of the node; defaults to the local node; cannot change' },
  name: { description: `The host's interface name: ${TUNNEL_NAME_RULE}` },
  protocol: {
    default: 'wireguard',
    description: 'Accepted so that a body read from GET can be posted back; wireguard is the only protocol',
  },
  mode: { default: 'standard', description: 'Cannot change' },
  subnet: { description: 'An IPv4 CIDR, e.g. 10.8.0.0/24' },
  endpointHost: { description: 'An IPv4 or IPv6 address or a hostname clients dial' },
  dns: {
    default: DEFAULT_DNS,
    description: 'IPv4 or IPv6 addresses of resolvers clients use through the tunnel; [] for none',
  },
  natInterface: {
    description: `Host uplink to NAT through (${UPLINK_NAME_RULE}); null: no NAT`,
  },
  awg: {
    description: 'A full set of AmneziaWG parameters instead of generated ones (amnezia mode only)',
  },
} satisfies Record<string, ApiPropertyOptions>;

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
const InterfaceName = () => rules(IsString(), Matches(TUNNEL_NAME, { message: `name must be ${TUNNEL_NAME_RULE}` }));
const Protocol = () =>
  IsIn(INTERFACE_PROTOCOLS, {
    message: 'protocol must be wireguard (the only protocol this panel runs; AmneziaWG is mode: amnezia)',
  });
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
    Matches(UPLINK_NAME, { message: `natInterface must be a host interface name (e.g. eth0): ${UPLINK_NAME_RULE}` }),
  );
const Awg = () => rules(IsObject(), ValidateNested(), Type(() => AmneziaParamsDto) as PropertyDecorator);

export class CreateInterfaceDto {
  @ApiPropertyOptional(DOC.nodeId) @OptionalNotNull() @IsString() nodeId?: string;
  @ApiProperty(DOC.name) @InterfaceName() name!: string;
  @ApiPropertyOptional(DOC.protocol) @OptionalNotNull() @Protocol() protocol?: InterfaceProtocol;
  @ApiPropertyOptional(DOC.mode) @OptionalNotNull() @Mode() mode?: InterfaceMode;
  @ListenPort() listenPort!: number;
  @ApiProperty(DOC.subnet) @Subnet() subnet!: string;
  @ApiProperty(DOC.endpointHost) @EndpointHost() endpointHost!: string;
  @OptionalNotNull() @Mtu() mtu?: number;
  @ApiPropertyOptional(DOC.dns) @OptionalNotNull() @Dns() dns?: string[];
  @ApiPropertyOptional(DOC.natInterface) @NatInterface() natInterface?: string | null;
  @ApiPropertyOptional({ default: true }) @OptionalNotNull() @IsBoolean() enabled?: boolean;
  @ApiPropertyOptional(DOC.awg) @OptionalNotNull() @Awg() awg?: AmneziaParamsDto;
}

/**
 * What a change may touch. `nodeId`, `protocol` and `mode` are accepted only so that moving an
 * interface or switching its protocol or mode is refused with a reason rather than as an unknown field.
 */
/** `POST /api/interfaces/{id}/clone`: what must differ from the source on its node. */
export class CloneInterfaceDto {
  @ApiProperty(DOC.name) @InterfaceName() name!: string;
  @ListenPort() listenPort!: number;
  @ApiProperty(DOC.subnet) @Subnet() subnet!: string;
}

export class UpdateInterfaceDto {
  @ApiPropertyOptional(DOC.nodeId) @OptionalNotNull() @IsString() nodeId?: string;
  @ApiPropertyOptional(DOC.name) @OptionalNotNull() @InterfaceName() name?: string;
  @ApiPropertyOptional({ description: 'Cannot change: only wireguard is accepted' })
  @OptionalNotNull()
  @Protocol()
  protocol?: InterfaceProtocol;
  @ApiPropertyOptional({ description: 'Cannot change: only the current mode is accepted' })
  @OptionalNotNull()
  @Mode()
  mode?: InterfaceMode;
  @OptionalNotNull() @ListenPort() listenPort?: number;
  @ApiPropertyOptional(DOC.subnet) @OptionalNotNull() @Subnet() subnet?: string;
  @ApiPropertyOptional(DOC.endpointHost) @OptionalNotNull() @EndpointHost() endpointHost?: string;
  @OptionalNotNull() @Mtu() mtu?: number;
  @ApiPropertyOptional(DOC.dns) @OptionalNotNull() @Dns() dns?: string[];
  @ApiPropertyOptional(DOC.natInterface) @NatInterface() natInterface?: string | null;
  @OptionalNotNull() @IsBoolean() enabled?: boolean;
  @ApiPropertyOptional(DOC.awg) @OptionalNotNull() @Awg() awg?: AmneziaParamsDto;
}

export class ListInterfacesQueryDto {
  @ApiPropertyOptional({ description: 'Only the interfaces of this node (its id)' })
  @IsOptional()
  @IsString()
  nodeId?: string;
}
