import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsInt, Max, Min, ValidateNested } from 'class-validator';
import {
  NOTIFICATION_CHANNEL_NAMES,
  NOTIFICATION_EVENT_KINDS,
  type NotificationChannelName,
  type NotificationEventKind,
} from '#libs/contracts/notification-events.js';
import { OptionalNotNull } from '../../http/validators.js';
import { EXPIRY_NOTICE_DAYS, RETENTION_DAYS } from '../notification-settings.js';

/** One switch: whether a channel carries a kind of event. */
export class NotifySwitchDto {
  @ApiProperty({ enum: NOTIFICATION_EVENT_KINDS })
  @IsIn(NOTIFICATION_EVENT_KINDS, { message: `kind must be one of ${NOTIFICATION_EVENT_KINDS.join(', ')}` })
  kind!: NotificationEventKind;

  @ApiProperty({ enum: NOTIFICATION_CHANNEL_NAMES })
  @IsIn(NOTIFICATION_CHANNEL_NAMES, { message: `channel must be one of ${NOTIFICATION_CHANNEL_NAMES.join(', ')}` })
  channel!: NotificationChannelName;

  @ApiProperty()
  @IsBoolean()
  enabled!: boolean;
}

/** PATCH /api/settings/notify: the switches given are set, the others stay. */
export class UpdateNotifySettingsDto {
  @ApiPropertyOptional({ description: 'Days before expiry that client.expiring fires' })
  @OptionalNotNull()
  @IsInt()
  @Min(EXPIRY_NOTICE_DAYS.min)
  @Max(EXPIRY_NOTICE_DAYS.max)
  expiryNoticeDays?: number;

  @ApiPropertyOptional({
    description: `Days events are kept after they happened, and webhook delivery attempts (default ${RETENTION_DAYS.default})`,
  })
  @OptionalNotNull()
  @IsInt()
  @Min(RETENTION_DAYS.min)
  @Max(RETENTION_DAYS.max)
  retentionDays?: number;

  @ApiPropertyOptional({ type: [NotifySwitchDto] })
  @OptionalNotNull()
  @IsArray()
  @ArrayMaxSize(NOTIFICATION_EVENT_KINDS.length * NOTIFICATION_CHANNEL_NAMES.length)
  @ValidateNested({ each: true })
  @Type(() => NotifySwitchDto)
  switches?: NotifySwitchDto[];
}

export class NotifySettingsDto {
  @ApiProperty({ type: 'integer' })
  expiryNoticeDays!: number;

  @ApiProperty({
    type: 'integer',
    description: 'Days events are kept after they happened, and webhook delivery attempts; older ones are pruned',
  })
  retentionDays!: number;

  @ApiProperty({ type: [NotifySwitchDto], description: 'Every kind × channel' })
  switches!: NotifySwitchDto[];

  @ApiProperty({
    enum: NOTIFICATION_CHANNEL_NAMES,
    isArray: true,
    description: 'The channels this panel has (a channel not built in is not listed)',
  })
  channels!: NotificationChannelName[];
}

export class ChannelTestDto {
  @ApiProperty({ enum: NOTIFICATION_CHANNEL_NAMES })
  channel!: NotificationChannelName;

  @ApiProperty()
  ok!: boolean;

  @ApiProperty({ type: String, nullable: true })
  error!: string | null;
}

export class NotifyTestDto {
  @ApiProperty({ description: 'The test event’s id' })
  eventId!: string;

  @ApiProperty({ type: [ChannelTestDto] })
  channels!: ChannelTestDto[];
}
