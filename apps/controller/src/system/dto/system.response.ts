import { ApiProperty } from '@nestjs/swagger';
import { DateTimeField, IdField, IntField } from '../../http/api-fields.js';
import { AGENT_STATES, type AgentState } from '../agent-state.js';
import { SERIES } from '../history-buckets.js';
import { HISTORY_RANGE_NAMES, type HistoryRange } from '../tiers.js';

export class CpuDto {
  @ApiProperty({ minimum: 0, maximum: 100 }) percent!: number;
  @IntField({ minimum: 1 }) cores!: number;
  @ApiProperty({ minimum: 0 }) load1!: number;
  @ApiProperty({ minimum: 0 }) load5!: number;
  @ApiProperty({ minimum: 0 }) load15!: number;
}

export class UsageDto {
  @ApiProperty({ minimum: 0, description: 'bytes' }) used!: number;
  @ApiProperty({ minimum: 0, description: 'bytes' }) total!: number;
  @ApiProperty({ minimum: 0, maximum: 100 }) percent!: number;
}

export class NetworkDto {
  @ApiProperty({ minimum: 0 }) rxBytes!: number;
  @ApiProperty({ minimum: 0 }) txBytes!: number;
  @ApiProperty({ minimum: 0, description: 'bytes per second over the last interval' }) rxRate!: number;
  @ApiProperty({ minimum: 0, description: 'bytes per second over the last interval' }) txRate!: number;
}

/** One reading of a host's state (libs/contracts/system.ts), with its time again as ISO. */
export class SampleDto {
  @IntField({ minimum: 0, description: 'ms since the epoch' }) at!: number;
  @ApiProperty({ type: CpuDto }) cpu!: CpuDto;
  @ApiProperty({ type: UsageDto }) memory!: UsageDto;
  @ApiProperty({ type: UsageDto }) swap!: UsageDto;
  @ApiProperty({ type: UsageDto, description: 'The filesystem holding the data directory' }) disk!: UsageDto;
  @ApiProperty({ type: NetworkDto }) network!: NetworkDto;
  @ApiProperty({ minimum: 0 }) uptimeSeconds!: number;
  @ApiProperty({ minimum: 0, description: 'Resident memory of the sampling process, bytes' }) processRss!: number;
  @DateTimeField() sampledAt!: string;
}

export class CapabilitiesDto {
  @ApiProperty() root!: boolean;
  @ApiProperty() wireguardKernel!: boolean;
  @ApiProperty() wireguardGo!: boolean;
  @ApiProperty() wg!: boolean;
  @ApiProperty() nft!: boolean;
  @ApiProperty() ip!: boolean;
}

export class NodeSystemAgentDto {
  @ApiProperty({ enum: AGENT_STATES }) state!: AgentState;
  @ApiProperty({ type: String, nullable: true }) version!: string | null;
  @DateTimeField({ nullable: true }) lastSeenAt!: string | null;
  @ApiProperty({ type: CapabilitiesDto, nullable: true }) capabilities!: CapabilitiesDto | null;
  @ApiProperty({ type: [String] }) gaps!: string[];
}

export class SyncDto {
  @IntField({ minimum: 0 }) desiredRevision!: number;
  @IntField({ minimum: 0 }) appliedRevision!: number;
  @ApiProperty() inSync!: boolean;
}

export class NodeSystemDto {
  @IdField() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() isLocal!: boolean;
  @ApiProperty({ type: NodeSystemAgentDto }) agent!: NodeSystemAgentDto;
  @ApiProperty({ type: SyncDto }) sync!: SyncDto;
  @ApiProperty({ type: SampleDto, nullable: true, description: 'The newest recent sample, or null' })
  system!: SampleDto | null;
}

export class SystemSnapshotDto {
  @ApiProperty({ type: SampleDto }) controller!: SampleDto;
  @ApiProperty({ type: [NodeSystemDto] }) nodes!: NodeSystemDto[];
}

export class PointDto {
  @IntField({ description: 'Start of the bucket, ms since the epoch' }) t!: number;
  @ApiProperty({ type: Number, nullable: true, description: 'Mean over the bucket; null when nothing was reported' })
  v!: number | null;
}

function seriesClass(): new () => object {
  class SeriesDto {}
  for (const name of SERIES) ApiProperty({ type: [PointDto] })(SeriesDto.prototype, name);
  return SeriesDto;
}

/** One series of points per metric (cpu, memory, swap, disk, rxRate, txRate, load1). */
export const SeriesDto = seriesClass();

export class SystemHistoryDto {
  @ApiProperty({ enum: HISTORY_RANGE_NAMES }) range!: HistoryRange;
  @IntField({ minimum: 1 }) points!: number;
  @ApiProperty({ minimum: 0, description: 'Seconds per point (may be fractional)' }) step!: number;
  @IdField({ nullable: true, description: "null: the controller's own host" }) nodeId!: string | null;
  @ApiProperty({ type: SeriesDto }) series!: Record<(typeof SERIES)[number], PointDto[]>;
}
