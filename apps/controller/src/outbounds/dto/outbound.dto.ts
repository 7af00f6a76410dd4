import { ApiPropertyOptional, ApiProperty, type ApiPropertyOptions } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { HOP_KINDS, OUTBOUND_TAG, SHADOWSOCKS_METHODS, type HopKind } from '#libs/contracts/routing.js';
import { OptionalNotNull } from '../../http/validators.js';
import { OptionalBody } from '../../http/validation.js';

/** A WireGuard key as `wg` prints it: base64 of 32 bytes. */
export const WG_KEY = /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw480]=$/;
export const MAX_ALLOWED_IPS = 64;
export const HOP_MTU_BOUNDS = [576, 9000] as const;
export const DEFAULT_HOP_MTU = 1420;
export const DEFAULT_HOP_KEEPALIVE = 25;
export const DEFAULT_HOP_ALLOWED_IPS: readonly string[] = ['0.0.0.0/0'];
/** Slots a node hands its hops (1..250): at most this many hops per node. */
export const MAX_HOPS_PER_NODE = 250;

// Descriptions only: the schema takes types and rules from the declarations (docs/dto-metadata.ts).
const DOC = {
  nodeId: { description: 'The node that runs the hop; defaults to the local node; cannot change' },
  tag: {
    description: 'Unique on the node; rules and the default outbound name hops by tag',
  },
  kind: {
    description:
      'wireguard, socks (SOCKS5), http (HTTP CONNECT) or shadowsocks; cannot change. direct and blocked are built in',
  },
  position: { description: "Display order; a new hop is placed after the node's other hops unless given" },
  address: {
    description: 'host:port of the proxy server or WireGuard endpoint ([IPv6]:port)',
    example: '203.0.113.7:1080',
  },
  username: { description: 'socks and http only; null for none' },
  password: {
    description: 'socks and http (optional), shadowsocks (required); never shown again',
  },
  method: { description: 'shadowsocks cipher (required for shadowsocks)' },
  privateKey: {
    description: "wireguard only: this side's private key; generated when absent; never shown",
  },
  peerPublicKey: { description: "wireguard only (required): the upstream peer's public key" },
  presharedKey: {
    description: 'wireguard only; null for none; never shown',
  },
  allowedIps: {
    default: DEFAULT_HOP_ALLOWED_IPS,
    description: 'wireguard only: what the upstream accepts from this side',
  },
  tunnelAddress: {
    description: "wireguard only (required): this side's address on the hop's tunnel, e.g. 10.66.0.2/32",
  },
  mtu: {
    default: DEFAULT_HOP_MTU,
    description: 'wireguard only',
  },
  keepalive: {
    default: DEFAULT_HOP_KEEPALIVE,
    description: 'wireguard only: persistent keepalive in seconds; 0 = off',
  },
} satisfies Record<string, ApiPropertyOptions>;

function rules(...decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, property) => {
    for (const decorator of decorators) decorator(target, property);
  };
}

const Tag = () =>
  rules(IsString(), Matches(OUTBOUND_TAG, { message: 'tag must be 1..64 characters of A-Z, a-z, 0-9, "_" and "-"' }));
const Kind = () =>
  IsIn(HOP_KINDS, { message: `kind must be one of ${HOP_KINDS.join(', ')} (direct and blocked are built in)` });
const Position = () => rules(IsInt(), Min(0), Max(1_000_000));
const Address = () => rules(IsString(), MaxLength(262));
const Credential = () => rules(IsOptional(), IsString(), MaxLength(256));
const Method = () => IsIn(SHADOWSOCKS_METHODS, { message: `method must be one of ${SHADOWSOCKS_METHODS.join(', ')}` });
const Key = (name: string) =>
  rules(IsString(), Matches(WG_KEY, { message: `${name} must be a WireGuard key (base64 of 32 bytes)` }));
const AllowedIps = () =>
  rules(IsArray(), ArrayMaxSize(MAX_ALLOWED_IPS), IsString({ each: true }), MaxLength(64, { each: true }));
const TunnelAddress = () => rules(IsString(), MaxLength(64));
const Mtu = () => rules(IsInt(), Min(HOP_MTU_BOUNDS[0]), Max(HOP_MTU_BOUNDS[1]));
const Keepalive = () => rules(IsInt(), Min(0), Max(65535));
const Note = () => rules(IsString(), MaxLength(512));

export class CreateOutboundDto {
  @ApiPropertyOptional(DOC.nodeId) @OptionalNotNull() @IsString() nodeId?: string;
  @ApiProperty(DOC.tag) @Tag() tag!: string;
  @ApiProperty(DOC.kind) @Kind() kind!: HopKind;
  @ApiPropertyOptional({ default: true }) @OptionalNotNull() @IsBoolean() enabled?: boolean;
  @ApiPropertyOptional(DOC.position) @OptionalNotNull() @Position() position?: number;
  @ApiProperty(DOC.address) @Address() address!: string;
  @ApiPropertyOptional(DOC.username) @Credential() username?: string | null;
  @ApiPropertyOptional(DOC.password) @Credential() password?: string | null;
  @ApiPropertyOptional(DOC.method) @OptionalNotNull() @Method() method?: (typeof SHADOWSOCKS_METHODS)[number];
  @ApiPropertyOptional(DOC.privateKey) @OptionalNotNull() @Key('privateKey') privateKey?: string;
  @ApiPropertyOptional(DOC.peerPublicKey) @OptionalNotNull() @Key('peerPublicKey') peerPublicKey?: string;
  @ApiPropertyOptional(DOC.presharedKey) @IsOptional() @Key('presharedKey') presharedKey?: string | null;
  @ApiPropertyOptional(DOC.allowedIps) @OptionalNotNull() @AllowedIps() allowedIps?: string[];
  @ApiPropertyOptional(DOC.tunnelAddress) @OptionalNotNull() @TunnelAddress() tunnelAddress?: string;
  @ApiPropertyOptional(DOC.mtu) @OptionalNotNull() @Mtu() mtu?: number;
  @ApiPropertyOptional(DOC.keepalive) @OptionalNotNull() @Keepalive() keepalive?: number;
  @OptionalNotNull() @Note() note?: string;
}

/**
 * What a change may touch. `nodeId` and `kind` are accepted only so that moving a hop or changing
 * its kind is refused with a reason rather than as an unknown field. Absent secrets stay as they
 * are; `null` clears an optional one.
 */
export class UpdateOutboundDto {
  @ApiPropertyOptional(DOC.nodeId) @OptionalNotNull() @IsString() nodeId?: string;
  @ApiPropertyOptional(DOC.tag) @OptionalNotNull() @Tag() tag?: string;
  @ApiPropertyOptional({ ...DOC.kind, description: 'Cannot change: only the current kind is accepted' })
  @OptionalNotNull()
  @Kind()
  kind?: HopKind;
  @OptionalNotNull() @IsBoolean() enabled?: boolean;
  @ApiPropertyOptional(DOC.position) @OptionalNotNull() @Position() position?: number;
  @ApiPropertyOptional(DOC.address) @OptionalNotNull() @Address() address?: string;
  @ApiPropertyOptional(DOC.username) @Credential() username?: string | null;
  @ApiPropertyOptional(DOC.password) @Credential() password?: string | null;
  @ApiPropertyOptional(DOC.method) @OptionalNotNull() @Method() method?: (typeof SHADOWSOCKS_METHODS)[number];
  @ApiPropertyOptional({
    ...DOC.privateKey,
    description: "wireguard only: replaces this side's private key (its public key follows); never shown",
  })
  @OptionalNotNull()
  @Key('privateKey')
  privateKey?: string;
  @ApiPropertyOptional(DOC.peerPublicKey) @OptionalNotNull() @Key('peerPublicKey') peerPublicKey?: string;
  @ApiPropertyOptional(DOC.presharedKey) @IsOptional() @Key('presharedKey') presharedKey?: string | null;
  @ApiPropertyOptional(DOC.allowedIps) @OptionalNotNull() @AllowedIps() allowedIps?: string[];
  @ApiPropertyOptional(DOC.tunnelAddress) @OptionalNotNull() @TunnelAddress() tunnelAddress?: string;
  @ApiPropertyOptional(DOC.mtu) @OptionalNotNull() @Mtu() mtu?: number;
  @ApiPropertyOptional(DOC.keepalive) @OptionalNotNull() @Keepalive() keepalive?: number;
  @OptionalNotNull() @Note() note?: string;
}

export class NodeQueryDto {
  @ApiPropertyOptional({ description: 'The node (its id); defaults to the local node' })
  @IsOptional()
  @IsString()
  nodeId?: string;
}

/** `{ nodeId }` as a body, which may be left out (the node then comes from the query, or is the local one). */
@OptionalBody()
export class NodeBodyDto {
  @ApiPropertyOptional({ description: 'The node (its id); or nodeId in the query; defaults to the local node' })
  @OptionalNotNull()
  @IsString()
  nodeId?: string;
}

export const PROBE_MODES = ['tcp', 'http'] as const;
export type ProbeMode = (typeof PROBE_MODES)[number];

export class CheckQueryDto {
  @ApiPropertyOptional({
    default: 'http',
    description: 'tcp: time the connect to the hop only; http: fetch the probe URL through the hop',
  })
  @IsOptional()
  @IsIn(PROBE_MODES, { message: 'mode must be tcp or http' })
  mode?: ProbeMode;
}

export class OutboundOrderDto {
  @ApiProperty({
    type: [String],
    maxItems: MAX_HOPS_PER_NODE,
    description: 'Every hop id of the node (not the built-ins), each once, in the new display order',
  })
  @IsArray()
  @ArrayMaxSize(MAX_HOPS_PER_NODE)
  @IsString({ each: true })
  @MaxLength(36, { each: true })
  ids!: string[];
}
