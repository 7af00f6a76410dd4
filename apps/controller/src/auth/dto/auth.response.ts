import { ApiProperty } from '@nestjs/swagger';
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

export class SignedInDto {
  @ApiProperty({
    description: 'The session token: send as `Authorization: Bearer <token>` (also set as an HttpOnly cookie)',
  })
  token!: string;

  @DateTimeField()
  expiresAt!: string;

  @ApiProperty({ type: UserDto })
  user!: UserDto;
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
