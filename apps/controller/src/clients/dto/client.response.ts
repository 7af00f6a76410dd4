import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { DateTimeField, IdField, IntField, OptionalIntField } from '../../http/api-fields.js';
import { CLIENT_STATUSES, RESET_CYCLES, type ClientStatus, type ResetCycle } from '../client.entity.js';

/** One device's peer on one interface; keys shown are public keys only. */
export class AccountDto {
  @IdField()
  id!: string;

  @IdField()
  interfaceId!: string;

  @IdField()
  nodeId!: string;

  @ApiProperty({ description: 'The tunnel address of the peer' })
  ip!: string;

  @ApiProperty()
  publicKey!: string;

  @ApiProperty()
  enabled!: boolean;

  @IntField({ minimum: 0 })
  upBytes!: number;

  @IntField({ minimum: 0 })
  downBytes!: number;

  @DateTimeField({ nullable: true })
  lastHandshake!: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'Where the peer last connected from (address:port)' })
  lastEndpoint!: string | null;

  @IntField({ minimum: 0, description: "Bytes per second received, in the agent's latest report of this peer" })
  downRate!: number;

  @IntField({ minimum: 0, description: "Bytes per second sent, in the agent's latest report of this peer" })
  upRate!: number;
}

export class DeviceDto {
  @IdField()
  id!: string;

  @IdField()
  clientId!: string;

  @ApiProperty()
  name!: string;

  @IntField({ minimum: 0 })
  upBytes!: number;

  @IntField({ minimum: 0 })
  downBytes!: number;

  @DateTimeField({ nullable: true })
  lastHandshake!: string | null;

  @ApiProperty()
  onlineNow!: boolean;

  @DateTimeField()
  createdAt!: string;

  @ApiProperty({ type: [AccountDto] })
  accounts!: AccountDto[];
}

export class ClientDto {
  @IdField()
  id!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty()
  note!: string;

  @ApiProperty({ type: [String] })
  groups!: string[];

  @ApiProperty({ type: String, nullable: true, description: 'The first group: what a one-group UI shows' })
  group!: string | null;

  @IntField({ nullable: true, minimum: 1 })
  telegramId!: number | null;

  @IntField({ minimum: 0, description: '0 = unlimited' })
  quotaBytes!: number;

  @IntField({ minimum: 0 })
  usedBytes!: number;

  @IntField({ minimum: 0 })
  upBytes!: number;

  @IntField({ minimum: 0 })
  downBytes!: number;

  @IntField({ nullable: true, description: 'null when the quota is unlimited' })
  remainingBytes!: number | null;

  @DateTimeField({ nullable: true, description: 'null: never expires' })
  expiresAt!: string | null;

  @IntField({ minimum: 0, description: '0 = unlimited' })
  deviceLimit!: number;

  @IntField({ minimum: 0 })
  deviceCount!: number;

  @IntField({ minimum: 0, description: '0 = unmetered' })
  rateBitsPerSec!: number;

  @ApiProperty({ enum: RESET_CYCLES })
  resetCycle!: ResetCycle;

  @DateTimeField({ nullable: true })
  lastResetAt!: string | null;

  @ApiProperty()
  startOnFirstUse!: boolean;

  @IntField({ minimum: 0 })
  durationSeconds!: number;

  @DateTimeField({ nullable: true })
  activatedAt!: string | null;

  @DateTimeField({ nullable: true, description: 'The latest handshake of any of its devices' })
  lastHandshake!: string | null;

  @ApiProperty()
  onlineNow!: boolean;

  @IntField({
    minimum: 0,
    description: "Bytes per second received now: between the agents' last two readings, over every device and node",
  })
  downRate!: number;

  @IntField({ minimum: 0, description: 'Bytes per second sent now, as downRate' })
  upRate!: number;

  @ApiProperty({ enum: CLIENT_STATUSES })
  status!: ClientStatus;

  @ApiProperty()
  subId!: string;

  @ApiProperty({ type: [String], format: 'uuid' })
  interfaceIds!: string[];

  @DateTimeField()
  createdAt!: string;

  @DateTimeField()
  updatedAt!: string;
}

export class ClientDetailDto extends ClientDto {
  @ApiProperty({ type: [DeviceDto] })
  devices!: DeviceDto[];
}

export class ClientPageDto {
  @ApiProperty({ type: [ClientDto] })
  items!: ClientDto[];

  @IntField({ minimum: 0 })
  total!: number;

  /** Absent when the page was asked for by cursor. */
  @OptionalIntField({ minimum: 1 })
  page?: number;

  @IntField({ minimum: 1 })
  perPage!: number;

  @ApiPropertyOptional({ description: 'Pass as ?cursor= for the next page; absent on the last page' })
  nextCursor?: string;
}

export class TrafficDto {
  @IntField({ minimum: 0 })
  usedBytes!: number;

  @IntField({ minimum: 0 })
  upBytes!: number;

  @IntField({ minimum: 0 })
  downBytes!: number;
}

export class ClientResetDto {
  @ApiProperty({ type: ClientDto })
  client!: ClientDto;

  @ApiProperty({ type: TrafficDto, description: 'The counters before the reset' })
  previous!: TrafficDto;
}
