import { IsString, Length } from 'class-validator';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { OptionalNotNull } from '../../http/validators.js';

export class LoginDto {
  @IsString()
  @Length(1, 64)
  username!: string;

  @ApiProperty({ format: 'password' })
  @IsString()
  @Length(1, 1024)
  password!: string;

  @ApiPropertyOptional({
    description:
      'With two-factor sign-in on: a six-digit code from the authenticator app, or an unused recovery code. Without it such a sign-in answers `{"needCode": true}`',
  })
  @OptionalNotNull()
  @IsString()
  @Length(1, 64)
  code?: string;
}
