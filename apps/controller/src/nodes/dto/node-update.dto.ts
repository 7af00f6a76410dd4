import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';
import { DEFAULT_LINK_DEADLINE_S, MAX_LINK_DEADLINE_S, MIN_LINK_DEADLINE_S } from '#libs/contracts/node-update.js';
import { DateTimeField, IdField, IntField } from '../../http/api-fields.js';
import { OptionalBody } from '../../http/validation.js';
import { OptionalNotNull } from '../../http/validators.js';
import { NODE_UPDATE_STATES, type NodeUpdateState } from '../update/node-update.service.js';

/** The whole body may be left out (the deadline then defaults). */
@OptionalBody()
export class StartNodeUpdateDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: MIN_LINK_DEADLINE_S,
    maximum: MAX_LINK_DEADLINE_S,
    default: DEFAULT_LINK_DEADLINE_S,
    description:
      "Seconds the new agent has to link to the panel after it restarts; past it, the node's launcher switches back to the previous release",
  })
  @OptionalNotNull()
  @IsInt()
  @Min(MIN_LINK_DEADLINE_S)
  @Max(MAX_LINK_DEADLINE_S)
  linkDeadlineSeconds?: number;
}

export class NodeUpdateDto {
  @IdField({ description: 'The update (a job id of this panel)' })
  id!: string;

  @IdField()
  nodeId!: string;

  @ApiProperty()
  nodeName!: string;

  @ApiProperty({ description: 'The agent version when the update started' })
  fromVersion!: string;

  @ApiProperty({ description: "The panel's package version the agent is updated to" })
  toVersion!: string;

  @ApiProperty({ description: 'SHA-256 of the package (hex), checked by the agent before anything is switched' })
  sha256!: string;

  @ApiProperty({
    enum: NODE_UPDATE_STATES,
    description:
      'installing: the agent downloads, verifies and unpacks the package; restarting: it switched and restarts, the panel waits for it to link with the new version; done: it did; rolled-back: the new one did not link in time and the previous version linked again; failed: see error (nothing switched when the agent refused)',
  })
  state!: NodeUpdateState;

  @ApiProperty({ type: String, nullable: true })
  error!: string | null;

  @IntField({ minimum: MIN_LINK_DEADLINE_S, maximum: MAX_LINK_DEADLINE_S })
  linkDeadlineSeconds!: number;

  @DateTimeField()
  startedAt!: Date;

  @DateTimeField({ nullable: true })
  finishedAt!: Date | null;
}
