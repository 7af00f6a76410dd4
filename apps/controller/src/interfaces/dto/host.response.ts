import { ApiProperty } from '@nestjs/swagger';
import { DateTimeField, IdField, IntField } from '../../http/api-fields.js';

export class HostDto {
  @IdField()
  id!: string;

  @IdField()
  interfaceId!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty()
  address!: string;

  @IntField({ minimum: 0, maximum: 65535, description: "As stored: 0 means the interface's listen port" })
  port!: number;

  @IntField({ minimum: 1, maximum: 65535, description: 'The port clients actually dial' })
  effectivePort!: number;

  @IntField()
  priority!: number;

  @ApiProperty()
  enabled!: boolean;

  @ApiProperty({ format: 'uuid', nullable: true, type: String, description: 'Its host group, or null' })
  groupId!: string | null;

  @ApiProperty({ type: [String] })
  tags!: string[];

  @IntField({ description: 'Lower first among hosts of equal priority' })
  position!: number;

  @DateTimeField()
  createdAt!: string;

  @DateTimeField()
  updatedAt!: string;
}

export class HostGroupDto {
  @IdField()
  id!: string;

  @ApiProperty()
  name!: string;

  @IntField({ description: 'Lower first' })
  position!: number;

  @ApiProperty({ type: [String], description: 'Client groups its hosts go to; empty: every client' })
  clientGroups!: string[];

  @IntField({ minimum: 0, description: 'Hosts in the group' })
  hosts!: number;

  @DateTimeField()
  createdAt!: string;

  @DateTimeField()
  updatedAt!: string;
}

export class HostTagDto {
  @ApiProperty()
  tag!: string;

  @IntField({ minimum: 1, description: 'Hosts carrying it' })
  hosts!: number;
}

export class HostBulkResultDto {
  @ApiProperty()
  action!: string;

  @ApiProperty({ type: [String], format: 'uuid' })
  ids!: string[];

  @IntField({ minimum: 0, description: 'Hosts the action changed' })
  changed!: number;
}

export class OrderResultDto {
  @ApiProperty({ type: [String], format: 'uuid', description: 'The ids in their new order' })
  ids!: string[];
}

export class HostCheckDto {
  @IdField()
  hostId!: string;

  @ApiProperty({ description: "The host's address as stored" })
  address!: string;

  @ApiProperty({ description: 'Whether the address resolved to at least one IP address (an IP literal always does)' })
  resolves!: boolean;

  @ApiProperty({
    type: [String],
    description:
      "What it resolved to; a name's private addresses (forbidden targets) only when settings allow private targets (see note)",
  })
  addresses!: string[];

  @IdField()
  nodeId!: string;

  @ApiProperty()
  nodeName!: string;

  @ApiProperty({
    type: [String],
    description:
      "The node's addresses as the panel knows them (its address and the interface endpoint, resolved); private ones as in addresses (see nodeNote)",
  })
  nodeAddresses!: string[];

  @ApiProperty({
    description: "Whether one of the address's addresses is one of the node's (private ones compared too, unprinted)",
  })
  matchesNode!: boolean;

  @ApiProperty({
    required: false,
    description: 'Said when the address resolves to a private address that addresses leaves out',
  })
  note?: string;

  @ApiProperty({ required: false, description: "Said when one of the node's names resolves to a private address" })
  nodeNote?: string;

  @ApiProperty({ required: false, description: "Why the host's address did not resolve" })
  error?: string;

  @ApiProperty({ required: false, description: "Why one of the node's names did not resolve" })
  nodeError?: string;
}

export class HostGroupBulkResultDto {
  @ApiProperty({ format: 'uuid', nullable: true, type: String })
  groupId!: string | null;

  @ApiProperty({ type: [String], format: 'uuid' })
  hostIds!: string[];

  @IntField({ minimum: 0, description: 'Hosts that moved' })
  changed!: number;
}
