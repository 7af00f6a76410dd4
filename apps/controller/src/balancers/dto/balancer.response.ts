import { ApiProperty } from '@nestjs/swagger';
import { DateTimeField, IdField } from '../../http/api-fields.js';
import { BALANCER_STRATEGIES, type BalancerStrategy } from '../../outbounds/balancer-pick.js';

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

  @ApiProperty({ type: String, nullable: true })
  note!: string | null;

  @DateTimeField()
  createdAt!: string;

  @DateTimeField()
  updatedAt!: string;
}
