import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
} from 'class-validator';
import { MAX_LIST_ENTRIES, MAX_RULES_PER_NODE, OUTBOUND_TAG } from '#libs/contracts/routing.js';
import { OptionalNotNull } from '../../http/validators.js';
import { RULE_NETWORKS, type RuleNetwork } from '../routing-rule.entity.js';

export const MAX_PORT_ENTRIES = 256;
/** Clients, groups and interfaces one rule names. */
export const MAX_NAMED_ENTRIES = 4096;

/** What failClosed does, and what turning it off leaks (request and response say the same). */
export const FAIL_CLOSED_DOC =
  "On (the default): traffic for a hop that is down, disabled or cannot carry its protocol is dropped. Off (fail open): that traffic leaves directly from the node's own uplink with the node's address, unencrypted by any hop: a crashed WireGuard hop's traffic until the agent repairs it, a disabled hop's always, and all UDP and ICMP of rules through a SOCKS, HTTP or shadowsocks hop (those carry TCP only)";

function rules(...decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, property) => {
    for (const decorator of decorators) decorator(target, property);
  };
}

const list = (max: number, itemMax: number) =>
  rules(IsArray(), ArrayMaxSize(max), IsString({ each: true }), MaxLength(itemMax, { each: true }));
const IpList = () => list(MAX_LIST_ENTRIES, 64);
const DomainList = () => list(MAX_LIST_ENTRIES, 253);
const PortList = () => list(MAX_PORT_ENTRIES, 11);
const Tag = (field: string) =>
  rules(
    IsString(),
    Matches(OUTBOUND_TAG, { message: `${field} must be an outbound tag (1..64 of A-Z, a-z, 0-9, "_" and "-")` }),
  );

const DOC = {
  ips: { description: 'IPv4/IPv6 addresses or networks (10.0.0.0/8)' },
  domains: {
    description: 'Domains; each matches itself and every name under it',
  },
  ports: { description: 'Ports or ranges: "443", "6881-6889"' },
  defaultOutbound: {
    description: 'Tag of an enabled outbound of the node (default direct)',
  },
  outboundTag: { description: 'Tag of an outbound or a balancer of the node, or direct / blocked' },
  network: { description: 'null: any' },
  clients: {
    description: "Client ids: matches their devices' tunnel addresses on this node",
  },
  groups: {
    description: "Client group names: matches their clients' devices' tunnel addresses on this node",
  },
  interfaces: {
    description: 'Interface ids of this node the traffic arrives on',
  },
} satisfies Record<string, ApiPropertyOptions>;

/** The basic settings; absent fields keep their values. */
export class UpdateRoutingDto {
  @ApiPropertyOptional(DOC.defaultOutbound) @OptionalNotNull() @Tag('defaultOutbound') defaultOutbound?: string;
  @ApiPropertyOptional({ description: 'Drop BitTorrent traffic' })
  @OptionalNotNull()
  @IsBoolean()
  blockBitTorrent?: boolean;
  @ApiPropertyOptional(DOC.ips) @OptionalNotNull() @IpList() blockIps?: string[];
  @ApiPropertyOptional(DOC.domains) @OptionalNotNull() @DomainList() blockDomains?: string[];
  @ApiPropertyOptional(DOC.ports) @OptionalNotNull() @PortList() blockPorts?: string[];
  @ApiPropertyOptional(DOC.ips) @OptionalNotNull() @IpList() directIps?: string[];
  @ApiPropertyOptional(DOC.domains) @OptionalNotNull() @DomainList() directDomains?: string[];
  @ApiPropertyOptional({ description: FAIL_CLOSED_DOC })
  @OptionalNotNull()
  @IsBoolean()
  failClosed?: boolean;
}

const Name = () => rules(IsString(), MinLength(1), MaxLength(128));
const Network = () => rules(IsOptional(), IsIn(RULE_NETWORKS, { message: 'network must be tcp, udp, icmp or null' }));

export class CreateRuleDto {
  @Name() name!: string;
  @ApiPropertyOptional({ default: true }) @OptionalNotNull() @IsBoolean() enabled?: boolean;
  @ApiPropertyOptional(DOC.ips) @OptionalNotNull() @IpList() sourceIps?: string[];
  @ApiPropertyOptional(DOC.ports) @OptionalNotNull() @PortList() sourcePorts?: string[];
  @ApiPropertyOptional(DOC.network) @Network() network?: RuleNetwork | null;
  @ApiPropertyOptional(DOC.ips) @OptionalNotNull() @IpList() destIps?: string[];
  @ApiPropertyOptional(DOC.domains) @OptionalNotNull() @DomainList() domains?: string[];
  @ApiPropertyOptional(DOC.ports) @OptionalNotNull() @PortList() ports?: string[];
  @ApiPropertyOptional(DOC.clients) @OptionalNotNull() @list(MAX_NAMED_ENTRIES, 36) clients?: string[];
  @ApiPropertyOptional(DOC.groups) @OptionalNotNull() @list(MAX_NAMED_ENTRIES, 64) groups?: string[];
  @ApiPropertyOptional(DOC.interfaces) @OptionalNotNull() @list(MAX_NAMED_ENTRIES, 36) interfaces?: string[];
  @ApiProperty(DOC.outboundTag) @Tag('outboundTag') outboundTag!: string;
}

export class UpdateRuleDto {
  @OptionalNotNull() @Name() name?: string;
  @OptionalNotNull() @IsBoolean() enabled?: boolean;
  @ApiPropertyOptional(DOC.ips) @OptionalNotNull() @IpList() sourceIps?: string[];
  @ApiPropertyOptional(DOC.ports) @OptionalNotNull() @PortList() sourcePorts?: string[];
  @ApiPropertyOptional(DOC.network) @Network() network?: RuleNetwork | null;
  @ApiPropertyOptional(DOC.ips) @OptionalNotNull() @IpList() destIps?: string[];
  @ApiPropertyOptional(DOC.domains) @OptionalNotNull() @DomainList() domains?: string[];
  @ApiPropertyOptional(DOC.ports) @OptionalNotNull() @PortList() ports?: string[];
  @ApiPropertyOptional(DOC.clients) @OptionalNotNull() @list(MAX_NAMED_ENTRIES, 36) clients?: string[];
  @ApiPropertyOptional(DOC.groups) @OptionalNotNull() @list(MAX_NAMED_ENTRIES, 64) groups?: string[];
  @ApiPropertyOptional(DOC.interfaces) @OptionalNotNull() @list(MAX_NAMED_ENTRIES, 36) interfaces?: string[];
  @ApiPropertyOptional(DOC.outboundTag) @OptionalNotNull() @Tag('outboundTag') outboundTag?: string;
}

export class RuleOrderDto {
  @ApiProperty({
    description: 'Every rule id of the node, each once, in the new order',
  })
  @IsArray()
  @ArrayMaxSize(MAX_RULES_PER_NODE)
  @IsString({ each: true })
  @MaxLength(36, { each: true })
  ids!: string[];
}
