import { ApiProperty } from '@nestjs/swagger';
import { DateTimeField, IdField } from '../../http/api-fields.js';
import { BALANCER_STRATEGIES, type BalancerStrategy } from '../../outbounds/balancer-pick.js';
import { BALANCER_WARNING_CODES } from '../balancer-warnings.js';

/** Shaped as the security warnings (GET /api/security/warnings). */
export class BalancerWarningDto {
  @ApiProperty({
    enum: BALANCER_WARNING_CODES,
    description: 'Stable: the web panel words each code in its own language',
  })
  code!: string;

  @ApiProperty({ enum: ['warning'] })
  severity!: string;

  @ApiProperty({ description: 'One sentence: what is wrong (English)' })
  message!: string;

  @ApiProperty({ description: 'What to do about it (English)' })
  action!: string;
}

export class BalancerHopDto {
  @IdField()
  id!: string;

  @ApiProperty()
  tag!: string;

  @ApiProperty()
  enabled!: boolean;

  @ApiProperty({
    type: String,
    enum: ['up', 'down'],
    nullable: true,
    description: "The periodic checks' verdict (null: never checked)",
  })
  health!: 'up' | 'down' | null;

  @ApiProperty({ description: 'The balancer may send traffic to it: enabled and not found down' })
  usable!: boolean;
}

export class BalancerDto {
  @IdField()
  id!: string;

  @IdField()
  nodeId!: string;

  @ApiProperty()
  tag!: string;

  @ApiProperty({ enum: BALANCER_STRATEGIES })
  strategy!: BalancerStrategy;

  @ApiProperty({ type: [BalancerHopDto], description: 'In order' })
  hops!: BalancerHopDto[];

  @IdField({ nullable: true, description: 'The pinned hop (POST /api/balancers/{id}/override); null: none' })
  overrideId!: string | null;

  @ApiProperty({
    type: [String],
    description:
      'Where its traffic goes now: the picked hop (failover, an override), the hops clients spread over (hash), or blocked / direct when no hop is usable',
  })
  current!: string[];

  @ApiProperty({
    type: [BalancerWarningDto],
    description:
      'What is wrong with it as it stands (override-hop-disabled: pinned to a disabled hop, so no hop carries its traffic); empty when nothing is',
  })
  warnings!: BalancerWarningDto[];

  @ApiProperty({ type: String, nullable: true })
  note!: string | null;

  @DateTimeField()
  createdAt!: string;

  @DateTimeField()
  updatedAt!: string;
}
