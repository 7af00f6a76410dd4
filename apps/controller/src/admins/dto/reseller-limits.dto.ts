import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayUnique, IsArray, IsInt, IsOptional, IsUUID, Max, Min } from 'class-validator';

const MAX_IDS = 1000;
const NULL_MEANS = 'null: no ceiling';

/**
 * The ceilings the owner sets for a reseller (docs/operators.md, "Ceilings"). Every field is
 * optional (absent: unchanged) and nullable (null: no ceiling).
 */
export class ResellerLimitsDto {
  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 0,
    description: `How many clients they may have; ${NULL_MEANS}`,
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(10_000_000)
  maxClients?: number | null;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 0,
    description: `Bytes their clients may use together, counted as usage accrues; ${NULL_MEANS}`,
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  trafficPoolBytes?: number | null;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 1,
    description: `The latest expiry (or longest service period) they may give, in days from now; ${NULL_MEANS}`,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(36_500)
  maxExpiryDays?: number | null;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 1,
    description: `The largest quota per client, in bytes (unlimited is then refused); ${NULL_MEANS}`,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  maxQuotaBytes?: number | null;

  @ApiPropertyOptional({
    type: [String],
    format: 'uuid',
    nullable: true,
    description: `The interfaces their clients may be attached to; ${NULL_MEANS}`,
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_IDS)
  @ArrayUnique()
  @IsUUID('all', { each: true })
  interfaceIds?: string[] | null;

  @ApiPropertyOptional({
    type: [String],
    format: 'uuid',
    nullable: true,
    description: `The nodes whose interfaces their clients may be attached to; ${NULL_MEANS}`,
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_IDS)
  @ArrayUnique()
  @IsUUID('all', { each: true })
  nodeIds?: string[] | null;
}
