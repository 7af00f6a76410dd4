import { ApiProperty } from '@nestjs/swagger';
import { NOTIFICATION_EVENT_KINDS, type NotificationEventKind } from '#libs/contracts/notification-events.js';
import { DateTimeField, IdField, IntField } from '../../../http/api-fields.js';

/** A webhook endpoint as answered: never its secret (shown once, by the creation's answer). */
export class WebhookDto {
  @IdField()
  id!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty()
  url!: string;

  @ApiProperty({ enum: NOTIFICATION_EVENT_KINDS, isArray: true, description: 'Empty: every kind' })
  events!: NotificationEventKind[];

  @ApiProperty()
  enabled!: boolean;

  @DateTimeField()
  createdAt!: string;

  @DateTimeField()
  updatedAt!: string;
}

export class CreatedWebhookDto extends WebhookDto {
  @ApiProperty({ description: 'The signing secret: shown this once, never again' })
  secret!: string;
}

/** One delivery attempt (the newest 50 per endpoint are kept). */
export class WebhookDeliveryDto {
  @IdField()
  id!: string;

  @IdField({ description: 'The event (the payload’s id and the Warren-Delivery header)' })
  eventId!: string;

  @ApiProperty({ enum: NOTIFICATION_EVENT_KINDS })
  kind!: NotificationEventKind;

  @IntField({ minimum: 1, description: '1 for the first try, then each retry' })
  attempt!: number;

  @IntField({
    nullable: true,
    description: 'HTTP status answered; null when none came (timeout, refused, forbidden address)',
  })
  status!: number | null;

  @ApiProperty({ description: 'A 2xx answer' })
  ok!: boolean;

  @IntField({ minimum: 0 })
  latencyMs!: number;

  @ApiProperty({ type: String, nullable: true })
  error!: string | null;

  @DateTimeField()
  at!: string;
}
