import { IsString, Length } from 'class-validator';
import { ApiProperty } from '@nestjs/swagger';

/**
 * The rule for a password a person sets: at least 8 characters as for WARREN_ADMIN_PASSWORD, and
 * no longer than sign-in accepts. Also what `warren admin reset-password` checks a password from
 * stdin against.
 */
export class NewPasswordDto {
  @ApiProperty({ format: 'password' })
  @IsString()
  @Length(8, 1024)
  newPassword!: string;
}

export class ChangePasswordDto extends NewPasswordDto {
  @ApiProperty({ format: 'password', description: 'The password in use now' })
  @IsString()
  @Length(1, 1024)
  currentPassword!: string;
}
