import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { IntField } from '../../http/api-fields.js';
import { DEFAULT_USAGE_RANGE, USAGE_RANGE_NAMES, type UsageRange } from '../usage-tiers.js';

/** `?range=` of the usage routes (default 24h). */
export class UsageQueryDto {
  @ApiPropertyOptional({ default: DEFAULT_USAGE_RANGE, enum: USAGE_RANGE_NAMES })
  @IsOptional()
  @IsIn(USAGE_RANGE_NAMES, { message: `range must be one of ${USAGE_RANGE_NAMES.join(', ')}` })
  range?: UsageRange;
}

export class UsagePointDto {
  @IntField({ description: 'Start of the bucket, ms since the epoch' }) t!: number;
  @IntField({ minimum: 0, description: 'Bytes in the bucket (0: nothing moved)' }) v!: number;
}

export class UsageSeriesPairDto {
  @ApiProperty({ type: [UsagePointDto], description: 'Bytes the client sent (upload)' }) up!: UsagePointDto[];
  @ApiProperty({ type: [UsagePointDto], description: 'Bytes the client received (download)' }) down!: UsagePointDto[];
}

export class UsageSeriesDto {
  @ApiProperty({ enum: USAGE_RANGE_NAMES }) range!: UsageRange;
  @IntField({ minimum: 1, description: 'Seconds per point' }) step!: number;
  @IntField({ minimum: 1 }) points!: number;
  @ApiProperty({ type: UsageSeriesPairDto }) series!: UsageSeriesPairDto;
  @IntField({ minimum: 0, description: 'Bytes sent over the whole range' }) upBytes!: number;
  @IntField({ minimum: 0, description: 'Bytes received over the whole range' }) downBytes!: number;
}
