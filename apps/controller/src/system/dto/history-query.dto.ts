import { IsIn, IsOptional, IsUUID } from 'class-validator';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { DEFAULT_HISTORY_RANGE, HISTORY_RANGE_NAMES, type HistoryRange } from '../tiers.js';

/** `?range=` (default 1h) and `?nodeId=` (default: the controller's own host). */
export class HistoryQueryDto {
  @ApiPropertyOptional({ default: DEFAULT_HISTORY_RANGE })
  @IsOptional()
  @IsIn(HISTORY_RANGE_NAMES, { message: `range must be one of ${HISTORY_RANGE_NAMES.join(', ')}` })
  range?: HistoryRange;

  @ApiPropertyOptional({ description: "A node's id; without it, the controller's own host" })
  @IsOptional()
  @IsUUID('all', { message: 'nodeId must be a node id (a UUID)' })
  nodeId?: string;
}
