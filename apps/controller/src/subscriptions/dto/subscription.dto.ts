import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayUnique, IsArray, IsIn, IsInt, IsString, IsUUID, Matches, Max, MaxLength, Min } from 'class-validator';
import { DateTimeField, IdField } from '../../http/api-fields.js';
import { OptionalNotNull } from '../../http/validators.js';
import {
  PAGE_LANGUAGES,
  SUBSCRIPTION_BOUNDS,
  SUBSCRIPTION_FORMATS,
  type PageLanguage,
} from '../subscription-settings.js';

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);
const NO_CONTROL = /^[^\u0000-\u001f\u007f]*$/;

/** PUT /api/subscription (the whole settings) and the body of POST /api/subscription/preview. */
export class SubscriptionSettingsDto {
  @ApiProperty({ description: "The page's heading and the profile-title apps show", maxLength: 64 })
  @Transform(trim)
  @IsString()
  @MaxLength(SUBSCRIPTION_BOUNDS.titleLength)
  @Matches(NO_CONTROL, { message: 'title must not contain control characters' })
  title!: string;

  @ApiProperty({ description: 'How customers reach support (a URL, a handle, a phone number); empty: not shown' })
  @Transform(trim)
  @IsString()
  @MaxLength(SUBSCRIPTION_BOUNDS.supportContactLength)
  @Matches(NO_CONTROL, { message: 'supportContact must not contain control characters' })
  supportContact!: string;

  @ApiProperty({
    type: 'array',
    items: { type: 'string', enum: [...SUBSCRIPTION_FORMATS] },
    description: 'What apps may fetch with ?format=',
  })
  @IsArray()
  @ArrayUnique()
  @IsIn(SUBSCRIPTION_FORMATS, { each: true })
  // string[], not SubscriptionFormat[]: the OpenAPI plugin would read the union as an enum of the array itself.
  formats!: string[];

  @ApiProperty({ enum: PAGE_LANGUAGES, description: "auto: the browser's language (English or Persian)" })
  @IsIn(PAGE_LANGUAGES)
  language!: PageLanguage;
}

export class SubscriptionPreviewDto extends SubscriptionSettingsDto {
  @ApiPropertyOptional({ enum: ['en', 'fa'], description: 'The language to preview; default: the setting (auto: en)' })
  @OptionalNotNull()
  @IsIn(['en', 'fa'])
  previewLanguage?: 'en' | 'fa';
}

/** A client's subscription link. */
export class SubscriptionLinkDto {
  @IdField()
  clientId!: string;

  @ApiProperty({ description: 'The public page: https://panel.example/<base>/sub/<token>' })
  url!: string;

  @ApiProperty({ description: 'The same below the origin: /<base>/sub/<token>' })
  path!: string;

  @ApiProperty({
    description: 'The URL apps fetch, one per offered format',
    type: 'object',
    additionalProperties: { type: 'string' },
  })
  formats!: Record<string, string>;
}

export const ONE_TIME_LINK_MINUTES = { min: 1, max: 1440, default: 30 } as const;

/** POST /api/devices/{id}/profile/link: which config, and for how long. */
export class CreateDownloadLinkDto {
  @ApiPropertyOptional({ format: 'uuid', description: "Default: the device's first interface" })
  @OptionalNotNull()
  @IsUUID()
  interfaceId?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'Default: the first dial target' })
  @OptionalNotNull()
  @IsUUID()
  hostId?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 1440, default: 30, description: 'Minutes until the link expires' })
  @OptionalNotNull()
  @IsInt()
  @Min(ONE_TIME_LINK_MINUTES.min)
  @Max(ONE_TIME_LINK_MINUTES.max)
  minutes?: number;
}

export class DownloadLinkDto {
  @ApiProperty({
    description:
      'https://panel.example/<base>/dl/<token>: a page (nothing spent, so a chat preview cannot use it up) whose button, `?download=1`, hands out the config once, until expiresAt',
  })
  url!: string;

  @ApiProperty()
  path!: string;

  @DateTimeField()
  expiresAt!: string;

  @ApiProperty()
  filename!: string;
}
