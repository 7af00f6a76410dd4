import { ApiProperty } from '@nestjs/swagger';
import { DateTimeField, IntField } from '../../http/api-fields.js';

/** Why a bulk job left clients unchanged (bulk/bulk-actions.ts `skipReason`): here, beside the answer that names it. */
export const SKIP_REASONS = ['no-expiry', 'not-started', 'unlimited-quota', 'already', 'gone', 'ceiling'] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

export class BulkProgressDto {
  @IntField({ minimum: 0, description: 'Clients handled so far' })
  done!: number;

  @IntField({ minimum: 0, description: 'Clients the selection held when the job was made' })
  total!: number;

  @IntField({ minimum: 0, description: 'Of those done, how many it changed (others needed nothing)' })
  changed!: number;

  @IntField({ minimum: 0, description: 'Of those done, how many it left alone (done − changed)' })
  skipped!: number;

  @ApiProperty({
    enum: SKIP_REASONS,
    nullable: true,
    description:
      'Why those were left alone (null: none was): no-expiry (extend from their expiry: the client never expires, or starts on first use and has not started; extend "from now" to give them one), not-started (extend from now: starts on first use and has not started), unlimited-quota (adjust: an unlimited quota is not adjusted), already (enable, disable, attach, detach: already so), gone (deleted meanwhile), ceiling (adjust, extend by a reseller: the change would pass their ceilings, counted when the job ran)',
  })
  skippedReason!: SkipReason | null;
}

/** A bulk action's job: GET /api/jobs/{id} until `state` is completed or failed. */
export class BulkJobDto {
  @ApiProperty({ description: 'The job id (a UUID)' })
  id!: string;

  @ApiProperty({ description: 'enable, disable, delete, adjust, extend, reset, purge, attach or detach' })
  action!: string;

  @ApiProperty({ enum: ['waiting', 'active', 'completed', 'failed'] })
  state!: 'waiting' | 'active' | 'completed' | 'failed';

  @ApiProperty({ type: BulkProgressDto })
  progress!: BulkProgressDto;

  @ApiProperty({ type: String, nullable: true, description: 'Why it failed; what was done before is in progress' })
  error!: string | null;

  @DateTimeField({ description: 'When it was made: its clock (an expiry "from now" counts from it)' })
  startedAt!: string;

  @DateTimeField({ nullable: true })
  finishedAt!: string | null;
}

export class ClientIdsDto {
  @ApiProperty({ type: [String], description: 'Ids of every client the filter selects, in id order' })
  ids!: string[];

  @IntField({ minimum: 0 })
  total!: number;
}
