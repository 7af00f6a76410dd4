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
    description:
      'Signed in with a temporary password the owner set: every route but `POST /api/auth/password` (or `PATCH /api/auth/me`), `GET /api/auth/me` and `POST /api/auth/logout` answers 403 until it is changed',
  })
  mustChangePassword?: boolean;

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

  @ApiProperty({ description: 'A temporary password must be changed before anything else (as in the sign-in answer)' })
  mustChangePassword!: boolean;
}

export class SessionDto {
  @IdField()
  id!: string;

  @DateTimeField({ description: 'When it signed in' })
  createdAt!: string;

  @DateTimeField()
  expiresAt!: string;

  @DateTimeField({ nullable: true, description: 'Kept to the minute' })
  lastSeenAt!: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'The address it signed in from' })
  address!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The User-Agent it signed in with (at most 256 characters)',
  })
  userAgent!: string | null;

  @ApiProperty({ description: 'The session making this request' })
  current!: boolean;
}

export class SessionsEndedDto {
  @ApiProperty({ type: 'integer', description: 'How many sessions ended (never the one making the request)' })
  sessionsEnded!: number;
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
