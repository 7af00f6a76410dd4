import { ApiProperty } from '@nestjs/swagger';
import { DateTimeField, IntField } from '../../http/api-fields.js';

const BYTES = 'bytes';

export class OperatorClientCountsDto {
  @IntField({ minimum: 0 }) total!: number;
  @IntField({ minimum: 0 }) active!: number;
  @IntField({ minimum: 0 }) disabled!: number;
  @IntField({ minimum: 0 }) expired!: number;
  @IntField({ minimum: 0 }) exhausted!: number;
}

export class OperatorUsageDto {
  @IntField({ minimum: 0, description: BYTES }) usedBytes!: number;
  @IntField({ minimum: 0, description: BYTES }) upBytes!: number;
  @IntField({ minimum: 0, description: BYTES }) downBytes!: number;
}

export class ResellerPoolDto {
  @IntField({ minimum: 0, description: 'Bytes their clients used since the pool was last reset' }) usedBytes!: number;
  @ApiProperty({ type: 'integer', nullable: true, description: 'The pool; null: no pool ceiling' })
  totalBytes!: number | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'What is left of it; null: no pool ceiling' })
  leftBytes!: number | null;
  @DateTimeField({ nullable: true, description: 'When the owner last reset it' }) resetAt!: string | null;
}

export class ResellerRoomDto {
  @ApiProperty({ type: 'integer', nullable: true }) maxClients!: number | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'Clients they may still create' })
  clientsLeft!: number | null;
  @ApiProperty({ type: 'integer', nullable: true }) maxExpiryDays!: number | null;
  @ApiProperty({ type: 'integer', nullable: true, description: BYTES }) maxQuotaBytes!: number | null;
  @ApiProperty({ type: [String], format: 'uuid', nullable: true }) interfaceIds!: string[] | null;
  @ApiProperty({ type: [String], format: 'uuid', nullable: true }) nodeIds!: string[] | null;
}

export class ResellerInterfaceDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ format: 'uuid' }) nodeId!: string;
}

export class ResellerOverviewDto {
  @ApiProperty({ type: ResellerPoolDto }) pool!: ResellerPoolDto;
  @ApiProperty({ type: ResellerRoomDto, description: 'Each ceiling (null: none) and the room left' })
  ceilings!: ResellerRoomDto;
  @ApiProperty({ type: [ResellerInterfaceDto], description: 'The interfaces they may attach clients to' })
  interfaces!: ResellerInterfaceDto[];
}

/** W-UI's GET /api/overview: the caller's clients, their traffic and, for a reseller, their pool and room. */
export class OperatorOverviewDto {
  @ApiProperty({ enum: ['panel', 'own'], description: "panel: every client (owner, admin, viewer); own: a reseller's" })
  scope!: 'panel' | 'own';
  @ApiProperty({ type: OperatorClientCountsDto }) clients!: OperatorClientCountsDto;
  @ApiProperty({ type: OperatorUsageDto }) usage!: OperatorUsageDto;
  @ApiProperty({
    type: ResellerOverviewDto,
    nullable: true,
    description: 'A reseller’s pool and ceilings; null for other roles',
  })
  reseller!: ResellerOverviewDto | null;
}
