import { ApiProperty } from '@nestjs/swagger';
import { DateTimeField, IdField, IntField } from '../../http/api-fields.js';
import { RULE_NETWORKS, type RuleNetwork } from '../routing-rule.entity.js';
import { FAIL_CLOSED_DOC } from './routing.dto.js';

export class RoutingBasicDto {
  @ApiProperty({ description: 'Tag of the outbound traffic no rule matched takes' })
  defaultOutbound!: string;

  @ApiProperty()
  blockBitTorrent!: boolean;

  @ApiProperty({ type: [String] })
  blockIps!: string[];

  @ApiProperty({ type: [String] })
  blockDomains!: string[];

  @ApiProperty({ type: [String] })
  blockPorts!: string[];

  @ApiProperty({ type: [String] })
  directIps!: string[];

  @ApiProperty({ type: [String] })
  directDomains!: string[];

  @ApiProperty({ description: FAIL_CLOSED_DOC })
  failClosed!: boolean;
}

export class RoutingRuleDto {
  @IdField()
  id!: string;

  @IdField()
  nodeId!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty()
  enabled!: boolean;

  @IntField({ minimum: 0, description: 'Matching order: the first rule whose criteria all match decides' })
  position!: number;

  @ApiProperty({ type: [String] })
  sourceIps!: string[];

  @ApiProperty({ type: [String] })
  sourcePorts!: string[];

  @ApiProperty({ type: String, enum: RULE_NETWORKS, nullable: true })
  network!: RuleNetwork | null;

  @ApiProperty({ type: [String] })
  destIps!: string[];

  @ApiProperty({ type: [String] })
  domains!: string[];

  @ApiProperty({ type: [String] })
  ports!: string[];

  @ApiProperty({ type: [String], description: 'Client ids' })
  clients!: string[];

  @ApiProperty({ type: [String], description: 'Client group names' })
  groups!: string[];

  @ApiProperty({ type: [String], description: 'Interface ids' })
  interfaces!: string[];

  @ApiProperty({ description: "Tag of the rule's outbound or balancer" })
  outboundTag!: string;

  @IdField({ nullable: true, description: 'The outbound; null when the rule targets a balancer' })
  outboundId!: string | null;

  @IdField({ nullable: true, description: 'The balancer the rule targets (GET /api/balancers); null: an outbound' })
  balancerId!: string | null;

  @IntField({ minimum: 0, description: 'Packets matched, as the node reports them' })
  hits!: number;

  @DateTimeField()
  createdAt!: string;

  @DateTimeField()
  updatedAt!: string;
}

export class RoutingDto {
  @IdField()
  nodeId!: string;

  @ApiProperty({ type: RoutingBasicDto })
  basic!: RoutingBasicDto;

  @ApiProperty({ type: [RoutingRuleDto], description: 'In matching order' })
  rules!: RoutingRuleDto[];
}
