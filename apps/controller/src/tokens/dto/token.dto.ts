import { IsBoolean, IsString, Length, Matches } from 'class-validator';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { OptionalNotNull } from '../../http/validators.js';

const NAME_RULE = /^[^\u0000-\u001f]*$/; // length is checked separately, with its own message

export class CreateTokenDto {
  @ApiProperty({ description: 'No control characters' })
  @IsString()
  @Length(1, 64)
  @Matches(NAME_RULE, { message: 'name must not contain control characters' })
  name!: string;
}

export class UpdateTokenDto {
  @ApiPropertyOptional({ description: 'No control characters' })
  @OptionalNotNull()
  @IsString()
  @Length(1, 64)
  @Matches(NAME_RULE, { message: 'name must not contain control characters' })
  name?: string;

  @ApiPropertyOptional({ description: 'false disables the token at once' })
  @OptionalNotNull()
  @IsBoolean()
  enabled?: boolean;
}
