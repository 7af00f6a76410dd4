import { IsString, Length, Matches, MaxLength } from 'class-validator';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsHostAddress, OptionalNotNull } from '../../http/validators.js';

const NO_CONTROL_CHARACTERS = /^[^\u0000-\u001f\u007f]*$/;

export class CreateNodeDto {
  @ApiProperty({ description: 'No control characters' })
  @IsString()
  @Length(1, 64)
  @Matches(NO_CONTROL_CHARACTERS, { message: 'name must not contain control characters' })
  name!: string;

  @ApiProperty({ description: 'An IPv4 or IPv6 address or a hostname' })
  @IsString()
  @MaxLength(255)
  @IsHostAddress()
  address!: string;

  @OptionalNotNull()
  @IsString()
  @MaxLength(512)
  note?: string;
}

export class UpdateNodeDto {
  @ApiPropertyOptional({ description: 'No control characters' })
  @OptionalNotNull()
  @IsString()
  @Length(1, 64)
  @Matches(NO_CONTROL_CHARACTERS, { message: 'name must not contain control characters' })
  name?: string;

  @ApiPropertyOptional({ description: 'An IPv4 or IPv6 address or a hostname' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(255)
  @IsHostAddress()
  address?: string;

  @OptionalNotNull()
  @IsString()
  @MaxLength(512)
  note?: string;
}
