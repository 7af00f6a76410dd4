import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsOptional, IsString, IsUUID, Length, Matches, ValidateIf } from 'class-validator';
import { CLIENT_LIMITS } from './client.dto.js';

export class CreateDeviceDto {
  @ApiProperty({
    description: 'Trimmed; unique per client regardless of case',
  })
  @Transform(({ value }) => (typeof value === 'string' ? value.trim() : value))
  @IsString()
  @Length(1, CLIENT_LIMITS.deviceNameLength)
  @Matches(/^[^\u0000-\u001f\u007f]*$/, { message: 'name must not contain control characters' })
  name!: string;
}

export const CONFIG_FORMATS = ['json', 'zip'] as const;

export class ConfigsQuery {
  @ApiPropertyOptional({ default: 'json' })
  @ValidateIf((_object: unknown, value: unknown) => value !== undefined)
  @IsIn(CONFIG_FORMATS)
  format?: (typeof CONFIG_FORMATS)[number];
}

/** GET /api/devices/{id}/profile: which of the device's configs (default: the first). */
export class DeviceProfileQuery {
  @ApiPropertyOptional({ format: 'uuid', description: "Default: the device's first interface (by name)" })
  @IsOptional()
  @IsUUID()
  interfaceId?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'Default: the first dial target (highest priority host)' })
  @IsOptional()
  @IsUUID()
  hostId?: string;

  @ApiPropertyOptional({ enum: ['json', 'conf'], default: 'json' })
  @IsOptional()
  @IsIn(['json', 'conf'])
  format?: 'json' | 'conf';
}
