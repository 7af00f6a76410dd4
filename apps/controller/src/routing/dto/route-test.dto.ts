import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsString, Max, MaxLength, Min } from 'class-validator';
import { IdField, IntField } from '../../http/api-fields.js';
import { OptionalNotNull } from '../../http/validators.js';

export const ROUTE_PROTOCOLS = ['tcp', 'udp', 'icmp'] as const;
export type RouteProtocol = (typeof ROUTE_PROTOCOLS)[number];
export const ROUTE_STEPS = ['resolver', 'block-list', 'bittorrent', 'direct-list', 'rule', 'default'] as const;

/** A packet to test against a node's routing: from a client or a tunnel address, to an address or domain. */
export class RouteTestDto {
  @ApiPropertyOptional({ description: 'The node (its id); defaults to the local node' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(36)
  nodeId?: string;

  @ApiPropertyOptional({
    description: "A client (its id): the source is its first device's tunnel address on the node. Give this or source",
  })
  @OptionalNotNull()
  @IsString()
  @MaxLength(36)
  clientId?: string;

  @ApiPropertyOptional({
    description: 'A tunnel address (IPv4) of the node the traffic comes from. Give this or clientId',
  })
  @OptionalNotNull()
  @IsString()
  @MaxLength(64)
  source?: string;

  @ApiProperty({ description: 'An IPv4 address, or a domain the node resolves as its resolver would' })
  @IsString()
  @MaxLength(253)
  destination!: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 65535, description: 'Destination port (TCP, UDP)' })
  @OptionalNotNull()
  @IsInt()
  @Min(1)
  @Max(65535)
  port?: number;

  @ApiPropertyOptional({ enum: ROUTE_PROTOCOLS, default: 'tcp' })
  @OptionalNotNull()
  @IsIn(ROUTE_PROTOCOLS, { message: 'protocol must be tcp, udp or icmp' })
  protocol?: RouteProtocol;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: 65535,
    description: 'Source port, for rules on source ports (else they do not match)',
  })
  @OptionalNotNull()
  @IsInt()
  @Min(1)
  @Max(65535)
  sourcePort?: number;
}

export class RouteTestSourceDto {
  @ApiProperty({ description: 'Tunnel address' })
  address!: string;

  @ApiProperty({ description: 'The tunnel interface (host name) it arrives on' })
  interface!: string;

  @IdField({ nullable: true })
  clientId!: string | null;
}

export class RouteTestDestinationDto {
  @ApiProperty({ description: 'The address tested' })
  address!: string;

  @ApiProperty({ type: String, nullable: true, description: 'The domain given, when one was' })
  domain!: string | null;

  @ApiProperty({
    type: [String],
    nullable: true,
    description: 'What the domain resolved to (IPv4); the first is tested. null: an address was given',
  })
  resolved!: string[] | null;
}

export class RouteTestRuleDto {
  @IdField()
  id!: string;

  @ApiProperty()
  name!: string;

  @IntField({ minimum: 0, description: "The rule's position in the node's matching order" })
  position!: number;
}

export class RouteTestResultDto {
  @IdField()
  nodeId!: string;

  @ApiProperty({ type: RouteTestSourceDto })
  source!: RouteTestSourceDto;

  @ApiProperty({ type: RouteTestDestinationDto })
  destination!: RouteTestDestinationDto;

  @ApiProperty({ enum: ROUTE_PROTOCOLS })
  protocol!: RouteProtocol;

  @IntField({ nullable: true })
  port!: number | null;

  @ApiProperty({
    enum: ROUTE_STEPS,
    description:
      'What decided: the node resolver (DNS of tunnels with domain criteria), a block list, the BitTorrent ports, a direct list, a rule, or the default outbound',
  })
  step!: (typeof ROUTE_STEPS)[number];

  @ApiProperty({ type: RouteTestRuleDto, nullable: true, description: 'The rule that matched (step rule)' })
  rule!: RouteTestRuleDto | null;

  @ApiProperty({
    type: [String],
    description: 'The criteria that matched (of the rule, or the list: blockIps, directDomains…)',
  })
  matched!: string[];

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Tag of the outbound that carries it: direct, blocked or a hop; null: the node resolver answers it',
  })
  outbound!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description:
      "Tag of the balancer the rule targets, whose pick for this source `outbound` is now (by the hops' last checks); null: none",
  })
  balancer!: string | null;

  @ApiProperty({ type: [String], description: 'What the answer cannot know, in words' })
  notes!: string[];
}

export class RoutingApplyDto {
  @ApiPropertyOptional({ description: 'The node (its id); absent: every node' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(36)
  nodeId?: string;
}

export class AppliedNodeDto {
  @IdField()
  nodeId!: string;

  @IntField({ description: 'The desired-state revision the agent now applies' })
  revision!: number;
}

export class RoutingAppliedDto {
  @ApiProperty({ type: [AppliedNodeDto] })
  nodes!: AppliedNodeDto[];
}
