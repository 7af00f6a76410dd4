import { IsIn, IsOptional, IsUUID } from 'class-validator';
import { HISTORY_RANGE_NAMES, type HistoryRange } from '../tiers.js';

/** `?range=` (default 1h) and `?nodeId=` (default: the controller's own host). */
export class HistoryQueryDto {
  @IsOptional()
  @IsIn(HISTORY_RANGE_NAMES, { message: `range must be one of ${HISTORY_RANGE_NAMES.join(', ')}` })
  range?: HistoryRange;

  @IsOptional()
  @IsUUID('all', { message: 'nodeId must be a node id (a UUID)' })
  nodeId?: string;
}
