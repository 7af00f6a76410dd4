import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsString,
  IsUUID,
  Length,
  Matches,
} from 'class-validator';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { USER_ROLES, type UserRole } from '#libs/contracts/user-roles.js';
import { Type } from 'class-transformer';
import { IsObject, ValidateNested } from 'class-validator';
import { OptionalNotNull } from '../../http/validators.js';
import { ResellerLimitsDto } from './reseller-limits.dto.js';

const LIMITS_DOC = {
  type: ResellerLimitsDto,
  description: "A reseller's ceilings (only for the reseller role): each absent one unchanged, each null none",
};

/** Letters and digits of any script, and `.`, `_`, `@`, `-`: a name to sign in with, nothing that needs quoting. */
const USERNAME_RULE = /^[\p{L}\p{N}._@-]+$/u;
const USERNAME_MESSAGE = 'username may hold letters, digits, ".", "_", "@" and "-" only';

export const BULK_ACTIONS = ['enable', 'disable', 'delete'] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];

export class CreateAdminDto {
  @ApiProperty({ description: 'What they sign in with: 1..64 letters, digits, ".", "_", "@", "-"' })
  @IsString()
  @Length(1, 64)
  @Matches(USERNAME_RULE, { message: USERNAME_MESSAGE })
  username!: string;

  @ApiProperty({
    format: 'password',
    description: 'A temporary password (8..1024 characters): they must change it at their first sign-in',
  })
  @IsString()
  @Length(8, 1024)
  password!: string;

  @ApiProperty({ enum: USER_ROLES, description: 'Never above the caller’s own' })
  @IsIn(USER_ROLES)
  role!: UserRole;

  @ApiPropertyOptional({ description: 'false makes the account unable to sign in (default true)' })
  @OptionalNotNull()
  @IsBoolean()
  enabled?: boolean;

  @ApiPropertyOptional(LIMITS_DOC)
  @OptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => ResellerLimitsDto)
  limits?: ResellerLimitsDto;
}

export class UpdateAdminDto {
  @ApiPropertyOptional({ description: 'Rename: 1..64 letters, digits, ".", "_", "@", "-"' })
  @OptionalNotNull()
  @IsString()
  @Length(1, 64)
  @Matches(USERNAME_RULE, { message: USERNAME_MESSAGE })
  username?: string;

  @ApiPropertyOptional({
    enum: USER_ROLES,
    description: 'Only the owner changes roles, never their own, never above their own; the last owner stays one',
  })
  @OptionalNotNull()
  @IsIn(USER_ROLES)
  role?: UserRole;

  @ApiPropertyOptional({
    description:
      "false ends the user's sessions and refuses their API tokens from the next request on; not for oneself nor the last owner",
  })
  @OptionalNotNull()
  @IsBoolean()
  enabled?: boolean;

  @ApiPropertyOptional({
    format: 'password',
    description:
      "A temporary password (8..1024 characters): the user's sessions end and they must change it at the next sign-in. Not for oneself (POST /api/auth/password)",
  })
  @OptionalNotNull()
  @IsString()
  @Length(8, 1024)
  password?: string;

  @ApiPropertyOptional(LIMITS_DOC)
  @OptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => ResellerLimitsDto)
  limits?: ResellerLimitsDto;
}

export class BulkAdminsDto {
  @ApiProperty({ type: [String], format: 'uuid', description: '1..100 distinct user ids; all or none are changed' })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @ArrayUnique()
  @IsUUID('all', { each: true })
  ids!: string[];

  @ApiProperty({ enum: BULK_ACTIONS })
  @IsIn(BULK_ACTIONS)
  action!: BulkAction;
}
