import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsInt,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
} from 'class-validator';
import { DateTimeField, IdField, IntField } from '../../http/api-fields.js';
import { OptionalNotNull } from '../../http/validators.js';
import { OUTBOUND_KINDS, type OutboundKind } from '../outbound.entity.js';

/** Scheduled refreshes at most this often (a provider's list changes in hours, not seconds). */
export const MIN_SUB_INTERVAL_SECONDS = 300;
export const MAX_SUB_INTERVAL_SECONDS = 7 * 24 * 3600;
export const DEFAULT_SUB_INTERVAL_SECONDS = 3600;
/** Subscriptions in all: each is a fetch on a schedule. */
export const MAX_OUTBOUND_SUBS = 100;

const NO_CONTROL_CHARACTERS = /^[^\u0000-\u001f\u007f]*$/;
const URL_DOC = {
  description:
    "http or https URL of the list: share links one a line, or base64 of that. No user name or password in it; not the panel's own or a private address unless settings allow private targets",
  example: 'https://provider.example.com/sub/hops.txt',
  maxLength: 2048,
};
const INTERVAL_DOC = {
  description: `Seconds between scheduled refreshes: 0 (only when asked for) or ${MIN_SUB_INTERVAL_SECONDS}..${MAX_SUB_INTERVAL_SECONDS}`,
  minimum: 0,
  maximum: MAX_SUB_INTERVAL_SECONDS,
};

function rules(...decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, property) => {
    for (const decorator of decorators) decorator(target, property);
  };
}
const Name = () =>
  rules(
    IsString(),
    MinLength(1),
    MaxLength(64),
    Matches(NO_CONTROL_CHARACTERS, { message: 'name must not contain control characters' }),
  );
const Url = () => rules(IsString(), MinLength(1), MaxLength(2048));
const Interval = () => rules(IsInt(), Min(0), Max(MAX_SUB_INTERVAL_SECONDS));

export class CreateOutboundSubDto {
  @ApiPropertyOptional({ description: 'The node its hops run on; defaults to the local node; cannot change' })
  @OptionalNotNull()
  @IsString()
  nodeId?: string;

  @ApiProperty({ description: 'Unique among subscriptions', minLength: 1, maxLength: 64 }) @Name() name!: string;
  @ApiProperty(URL_DOC) @Url() url!: string;
  @ApiPropertyOptional({ default: true, description: 'A disabled subscription is not refreshed on its schedule' })
  @OptionalNotNull()
  @IsBoolean()
  enabled?: boolean;

  @ApiPropertyOptional({ ...INTERVAL_DOC, default: DEFAULT_SUB_INTERVAL_SECONDS, type: 'integer' })
  @OptionalNotNull()
  @Interval()
  intervalSeconds?: number;
}

export class UpdateOutboundSubDto {
  @ApiPropertyOptional({ description: 'Cannot change: only the current node is accepted' })
  @OptionalNotNull()
  @IsString()
  nodeId?: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 64 }) @OptionalNotNull() @Name() name?: string;
  @ApiPropertyOptional(URL_DOC) @OptionalNotNull() @Url() url?: string;
  @ApiPropertyOptional() @OptionalNotNull() @IsBoolean() enabled?: boolean;
  @ApiPropertyOptional({ ...INTERVAL_DOC, type: 'integer' }) @OptionalNotNull() @Interval() intervalSeconds?: number;
}

export class PreviewOutboundSubDto {
  @ApiProperty(URL_DOC) @Url() url!: string;
}

export class OutboundSubOrderDto {
  @ApiProperty({
    type: [String],
    maxItems: MAX_OUTBOUND_SUBS,
    description: 'Every subscription id, each once, in the new order (display and refresh order)',
  })
  @IsArray()
  @ArrayMaxSize(MAX_OUTBOUND_SUBS)
  @IsString({ each: true })
  @MaxLength(36, { each: true })
  ids!: string[];
}

export class OutboundSubDto {
  @IdField() id!: string;
  @IdField() nodeId!: string;
  @ApiProperty() name!: string;
  @ApiProperty({
    description:
      "The list's URL; to a viewer only its origin (`https://provider.example.com/…`): a path or query may hold the provider's token",
  })
  url!: string;
  @ApiProperty() enabled!: boolean;
  @IntField({ minimum: 0, description: '0: refreshed only when asked for' }) intervalSeconds!: number;
  @IntField({ minimum: 0 }) position!: number;
  @DateTimeField({ nullable: true, description: 'The last fetch, whether it worked or not; null: never fetched' })
  lastFetchedAt!: Date | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Why the last fetch failed (its hops were left as they were); null when it worked',
  })
  lastError!: string | null;

  @ApiProperty({
    type: [String],
    description: 'Lines of the last list that gave no hop, each with its reason (at most 20)',
  })
  skipped!: string[];

  @IntField({ minimum: 0, description: 'Hops made from it now on its node' }) count!: number;
  @IntField({
    minimum: 0,
    description: 'Of those, hops gone from the list but kept because a rule or the default uses them',
  })
  kept!: number;

  @DateTimeField() createdAt!: Date;
  @DateTimeField() updatedAt!: Date;
}

export class OutboundSubHopDto {
  @IntField({ minimum: 1, description: "The link's line in the (decoded) list" }) line!: number;
  @ApiProperty() tag!: string;
  @ApiProperty({ enum: OUTBOUND_KINDS }) kind!: OutboundKind;
  @ApiProperty({ example: '203.0.113.7:1080' }) address!: string;
  @ApiProperty({ type: String, nullable: true }) username!: string | null;
  @ApiProperty({ description: 'The link carries a password (never shown)' }) hasPassword!: boolean;
  @ApiProperty({ type: String, nullable: true }) method!: string | null;
}

export class OutboundSubPreviewDto {
  @ApiProperty({ type: [OutboundSubHopDto], description: 'The hops a refresh would make or update, in list order' })
  hops!: OutboundSubHopDto[];

  @ApiProperty({ type: [String], description: 'Lines that would give no hop, each with its reason (at most 20)' })
  skipped!: string[];
}

export class OutboundSubRefreshDto {
  @ApiProperty({ type: OutboundSubDto }) subscription!: OutboundSubDto;
  @IntField({ minimum: 0, description: 'Hops made' }) added!: number;
  @IntField({ minimum: 0, description: 'Hops changed in place' }) updated!: number;
  @IntField({ minimum: 0, description: 'Hops gone from the list and deleted' }) removed!: number;
  @IntField({ minimum: 0, description: 'Hops gone from the list but kept (a rule or the default uses them), flagged' })
  kept!: number;
}
