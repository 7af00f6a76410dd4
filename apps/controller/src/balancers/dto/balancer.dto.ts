import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  MaxLength,
} from 'class-validator';
import { OUTBOUND_TAG } from '#libs/contracts/routing.js';
import { OptionalNotNull } from '../../http/validators.js';
import { BALANCER_STRATEGIES, type BalancerStrategy } from '../../outbounds/balancer-pick.js';

/** Hops one balancer may list. */
export const MAX_BALANCER_HOPS = 16;

const DOC = {
  nodeId: { description: 'The node whose hops it balances; defaults to the local node; cannot change' },
  tag: { description: 'Unique on the node among outbounds and balancers; routing rules name it as outboundTag' },
  strategy: {
    description:
      'failover: the first healthy hop in order; hash: clients spread over the healthy hops by their tunnel address',
  },
  hops: { description: 'Outbound ids (hops of the node, not direct or blocked), in order, each once' },
  note: { description: 'Free text for operators' },
};

// `hops` entries that are not text are refused here, naming `hops` (a validator's `each` cannot
// name the entry); the service (checkHops) names the entry for every other fault (`hops.1`).
const Tag = () => Matches(OUTBOUND_TAG, { message: 'tag must be 1..64 characters of A-Z, a-z, 0-9, "_" and "-"' });
const Strategy = () =>
  IsIn(BALANCER_STRATEGIES, { message: `strategy must be one of ${BALANCER_STRATEGIES.join(', ')}` });

export class CreateBalancerDto {
  @ApiPropertyOptional(DOC.nodeId) @OptionalNotNull() @IsString() nodeId?: string;
  @ApiProperty(DOC.tag) @IsString() @Tag() tag!: string;
  @ApiProperty(DOC.strategy) @Strategy() strategy!: BalancerStrategy;
  @ApiProperty({ ...DOC.hops, type: [String], minItems: 1, maxItems: MAX_BALANCER_HOPS })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_BALANCER_HOPS)
  @IsString({ each: true })
  hops!: string[];
  @ApiPropertyOptional({ ...DOC.note, type: String, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  note?: string | null;
}

export class UpdateBalancerDto {
  @ApiPropertyOptional({ ...DOC.nodeId, description: 'Cannot change: only the current node is accepted' })
  @OptionalNotNull()
  @IsString()
  nodeId?: string;
  @ApiPropertyOptional(DOC.tag) @OptionalNotNull() @IsString() @Tag() tag?: string;
  @ApiPropertyOptional(DOC.strategy) @OptionalNotNull() @Strategy() strategy?: BalancerStrategy;
  @ApiPropertyOptional({ ...DOC.hops, type: [String], minItems: 1, maxItems: MAX_BALANCER_HOPS })
  @OptionalNotNull()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_BALANCER_HOPS)
  @IsString({ each: true })
  hops?: string[];
  @ApiPropertyOptional({ ...DOC.note, type: String, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  note?: string | null;
}

export class BalancerOverrideDto {
  @ApiPropertyOptional({
    type: String,
    format: 'uuid',
    nullable: true,
    description:
      "One of the balancer's hops to pin (whatever its health) until cleared; null or absent (an empty body) clears the override",
  })
  @IsOptional()
  @IsUUID('all')
  outboundId?: string | null;
}
