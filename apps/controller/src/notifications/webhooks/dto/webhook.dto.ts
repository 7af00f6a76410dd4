import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsString,
  IsUrl,
  Length,
  Matches,
  MaxLength,
} from 'class-validator';
import { NOTIFICATION_EVENT_KINDS, type NotificationEventKind } from '#libs/contracts/notification-events.js';
import { OptionalNotNull } from '../../../http/validators.js';

const NAME_RULE = /^[^\u0000-\u001f]*$/;

/** The event filter's rules, the same at creation and change: known kinds, each once. */
const EventFilter = (description: string) =>
  applyDecorators(
    ApiPropertyOptional({ enum: NOTIFICATION_EVENT_KINDS, isArray: true, description }),
    OptionalNotNull(),
    IsArray(),
    ArrayMaxSize(NOTIFICATION_EVENT_KINDS.length),
    ArrayUnique({ message: 'events must not repeat a kind' }),
    IsIn(NOTIFICATION_EVENT_KINDS, {
      each: true,
      message: `each of events must be one of ${NOTIFICATION_EVENT_KINDS.join(', ')}`,
    }),
  );
const URL_RULE = { protocols: ['http', 'https'], require_protocol: true, require_tld: false, require_host: true };

export class CreateWebhookDto {
  @ApiProperty({ description: 'For people: what the endpoint is (no control characters)' })
  @IsString()
  @Length(1, 128)
  @Matches(NAME_RULE, { message: 'name must not contain control characters' })
  name!: string;

  @ApiProperty({
    description:
      'http(s) URL the events are POSTed to; not a private or loopback address unless settings allow private targets',
  })
  @IsString()
  @MaxLength(2048)
  @IsUrl(URL_RULE, { message: 'url must be an http or https URL' })
  url!: string;

  @EventFilter('Kinds sent; empty or absent: every kind')
  events?: NotificationEventKind[];

  @ApiPropertyOptional({ description: 'Default true' })
  @OptionalNotNull()
  @IsBoolean()
  enabled?: boolean;
}

export class UpdateWebhookDto {
  @ApiPropertyOptional({ description: 'No control characters' })
  @OptionalNotNull()
  @IsString()
  @Length(1, 128)
  @Matches(NAME_RULE, { message: 'name must not contain control characters' })
  name?: string;

  @ApiPropertyOptional({ description: 'http(s) URL; the same target rules as at creation' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(2048)
  @IsUrl(URL_RULE, { message: 'url must be an http or https URL' })
  url?: string;

  @EventFilter('Kinds sent; empty: every kind')
  events?: NotificationEventKind[];

  @ApiPropertyOptional({ description: 'false: nothing is sent to it (queued attempts are dropped)' })
  @OptionalNotNull()
  @IsBoolean()
  enabled?: boolean;
}
