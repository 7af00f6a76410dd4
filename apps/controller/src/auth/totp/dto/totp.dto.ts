import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';
import { IdField } from '../../../http/api-fields.js';

export class TotpCodeDto {
  @ApiProperty({
    description: 'A six-digit code from the authenticator app (or, to turn 2FA off, an unused recovery code)',
    example: '123456',
  })
  @IsString()
  @Length(1, 64)
  code!: string;
}

export class TotpStartDto {
  @ApiProperty({
    format: 'password',
    description: 'The current password: turning on a second factor is a change of how one signs in',
  })
  @IsString()
  @Length(1, 1024)
  password!: string;
}

export class TotpStartedDto {
  @ApiProperty({ description: 'The TOTP secret (base32), for typing into an app: shown this once only' })
  secret!: string;

  @ApiProperty({ description: 'The `otpauth://totp/…` URI holding the secret, for a QR code' })
  uri!: string;
}

export class TotpConfirmedDto {
  @ApiProperty({ type: Boolean, enum: [true] })
  enabled!: true;

  @ApiProperty({
    type: [String],
    description:
      'One-time recovery codes, each signs in (or turns 2FA off) once in place of a code: shown this once only',
  })
  recoveryCodes!: string[];
}

export class TotpStatusDto {
  @ApiProperty({ description: 'Whether sign-in asks for a code' })
  enabled!: boolean;

  @ApiProperty({ description: 'A secret was started but not yet confirmed with a code' })
  pending!: boolean;

  @ApiProperty({ type: 'integer', description: 'Unused recovery codes (0 while 2FA is off)' })
  recoveryCodesLeft!: number;
}

export class TotpDisabledDto {
  @ApiProperty({ type: Boolean, enum: [false] })
  enabled!: false;
}

export class TotpResetDto {
  @IdField()
  id!: string;

  @ApiProperty({ type: Boolean, enum: [false], description: "The user's two-factor sign-in is off" })
  enabled!: false;
}
