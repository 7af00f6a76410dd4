import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { DateTimeField, DeletedDto, IdField, IntField } from '../../http/api-fields.js';
import { AGENT_STATES, type AgentState } from '../../system/agent-state.js';

export class InterfaceOutcomeDto {
  @ApiProperty()
  name!: string;

  @ApiProperty({ enum: ['up', 'down', 'failed', 'removed'] })
  state!: 'up' | 'down' | 'failed' | 'removed';

  @ApiProperty({ enum: ['kernel', 'wireguard-go', 'none'] })
  driver!: 'kernel' | 'wireguard-go' | 'none';

  @IntField({ minimum: 0 })
  peers!: number;

  @ApiPropertyOptional()
  error?: string;
}

export class OutboundOutcomeDto {
  @ApiProperty({ description: "The hop's tag" })
  tag!: string;

  @ApiProperty({ enum: ['up', 'failed'] })
  state!: 'up' | 'failed';

  @ApiPropertyOptional()
  error?: string;
}

export class RoutingOutcomeDto {
  @ApiProperty({
    enum: ['up', 'failed'],
    description: 'Whether the policy routing (nft table, ip rules, routes) is in place',
  })
  state!: 'up' | 'failed';

  @IntField({ minimum: 0, description: 'Rules in place' })
  rules!: number;

  @ApiPropertyOptional()
  error?: string;
}

export class ApplyResultDto {
  @IntField({ minimum: 0 })
  revision!: number;

  @ApiProperty({ description: 'True when every desired interface is up' })
  ok!: boolean;

  @ApiProperty({ type: [InterfaceOutcomeDto] })
  interfaces!: InterfaceOutcomeDto[];

  @ApiProperty({ minimum: 0 })
  durationMs!: number;

  @ApiPropertyOptional({
    type: [OutboundOutcomeDto],
    description: "Each desired hop's outcome (absent from agents older than hops)",
  })
  outbounds?: OutboundOutcomeDto[];

  @ApiPropertyOptional({
    type: RoutingOutcomeDto,
    description: 'The policy routing outcome (absent when the node routes everything directly, and from older agents)',
  })
  routing?: RoutingOutcomeDto;
}

export class NodeAgentDto {
  @ApiProperty({ enum: AGENT_STATES })
  state!: AgentState;

  @ApiProperty({ type: String, nullable: true })
  version!: string | null;

  @DateTimeField({ nullable: true })
  lastSeenAt!: string | null;

  @ApiProperty({ type: [String], description: 'What the host cannot do; empty when it can apply everything' })
  gaps!: string[];

  @ApiProperty({ type: ApplyResultDto, nullable: true })
  lastApply!: ApplyResultDto | null;
}

export class NodeDto {
  @IdField()
  id!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty()
  address!: string;

  @ApiProperty()
  note!: string;

  @ApiProperty()
  isLocal!: boolean;

  @IntField({ minimum: 0 })
  desiredRevision!: number;

  @IntField({ minimum: 0 })
  appliedRevision!: number;

  @ApiProperty()
  inSync!: boolean;

  @IntField({ minimum: 0 })
  interfaceCount!: number;

  @ApiProperty({ description: 'Every interface of the node is kept down (POST /api/tunnels/stop) until started' })
  tunnelsStopped!: boolean;

  @ApiProperty({ type: NodeAgentDto })
  agent!: NodeAgentDto;

  @DateTimeField()
  createdAt!: string;

  @DateTimeField()
  updatedAt!: string;
}

export class EnrolmentDto {
  @ApiProperty({ description: 'The one-time secret (`wne_…`), shown once' })
  secret!: string;

  @DateTimeField()
  expiresAt!: string;

  @ApiProperty({
    description: 'What to run on a new host, as root: one line that installs the agent from this panel and enrols it',
  })
  command!: string;

  @ApiProperty({ description: "The agent's own enrolment command, for a host where warren-agent is installed already" })
  agentCommand!: string;
}

export class CreatedNodeDto extends NodeDto {
  @ApiProperty({
    type: EnrolmentDto,
    nullable: true,
    description: 'null when this panel cannot enrol remote agents (see enrolmentError)',
  })
  enrolment!: EnrolmentDto | null;

  @ApiPropertyOptional({ description: 'Why there is no enrolment' })
  enrolmentError?: string;
}

export class NodeDeletedDto extends DeletedDto {
  @IntField({ minimum: 0 })
  interfacesRemoved!: number;
}

export class RedisQueueAccessDto {
  @ApiProperty({ enum: ['redis'] })
  kind!: 'redis';

  @ApiProperty()
  url!: string;

  @ApiProperty()
  username!: string;

  @ApiProperty()
  password!: string;

  @ApiProperty()
  prefix!: string;
}

export class PostgresQueueAccessDto {
  @ApiProperty({ enum: ['postgres'] })
  kind!: 'postgres';
}

@ApiExtraModels(RedisQueueAccessDto, PostgresQueueAccessDto)
export class EnrolledDto {
  @IdField()
  nodeId!: string;

  @ApiProperty()
  nodeName!: string;

  @ApiProperty({ description: 'The node credential (`wnc_…`), shown once' })
  credential!: string;

  @ApiProperty({
    oneOf: [{ $ref: getSchemaPath(RedisQueueAccessDto) }, { $ref: getSchemaPath(PostgresQueueAccessDto) }],
  })
  queue!: RedisQueueAccessDto | PostgresQueueAccessDto;
}
