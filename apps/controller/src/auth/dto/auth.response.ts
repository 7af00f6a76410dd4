import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { DateTimeField, IdField } from '../../http/api-fields.js';
import { USER_ROLES, type UserRole } from '#libs/contracts/user-roles.js';

export class UserDto {
  @IdField()
  id!: string;

  @ApiProperty()
  username!: string;

  @ApiProperty({ enum: USER_ROLES })
  role!: UserRole;
}

/**
 * What sign-in answers: a session (`token`, `expiresAt`, `user`), or, when the user has
 * two-factor sign-in on and no code was sent, only `{"needCode": true}` and no session.
 */
export class SignedInDto {
  @ApiPropertyOptional({
    description: 'The session token: send as `Authorization: Bearer <token>` (also set as an HttpOnly cookie)',
  })
  token?: string;

  @DateTimeField({ required: false })
  expiresAt?: string;

  @ApiPropertyOptional({ type: UserDto })
  user?: UserDto;

  @ApiPropertyOptional({
    type: Boolean,
    enum: [true],
    description: 'The password was right and two-factor sign-in is on: send it again with `code`',
  })
  needCode?: true;
}

export class MeDto {
  @ApiProperty({ type: UserDto })
  user!: UserDto;

  @ApiProperty({ enum: ['session', 'token'] })
  via!: 'session' | 'token';
}

export class LoggedOutDto {
  @ApiProperty({ type: Boolean, enum: [true] })
  ok!: true;
}

export class PasswordChangedDto {
  @ApiProperty({ type: UserDto })
  user!: UserDto;

  @ApiProperty({
    type: 'integer',
    description: "How many of the user's other sessions ended (the one making the change stays)",
  })
  sessionsEnded!: number;
}
