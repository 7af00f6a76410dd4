import { ApiProperty } from '@nestjs/swagger';
import { USER_ROLES, type UserRole } from '#libs/contracts/user-roles.js';
import { DateTimeField, IdField } from '../../http/api-fields.js';
import { BULK_ACTIONS, type BulkAction } from './admin.dto.js';

/** A panel user as the owner sees them: never a password or its hash. */
export class AdminDto {
  @IdField()
  id!: string;

  @ApiProperty()
  username!: string;

  @ApiProperty({ enum: USER_ROLES })
  role!: UserRole;

  @ApiProperty({ description: 'false: no sign-in, and their sessions and API tokens are refused' })
  enabled!: boolean;

  @ApiProperty({ description: 'A temporary password the owner set is still to be changed' })
  mustChangePassword!: boolean;

  @ApiProperty({ type: 'integer', description: 'How many sessions they have signed in now' })
  sessions!: number;

  @DateTimeField({ nullable: true, description: 'The latest of their sessions’ last use (to the minute)' })
  lastSeenAt!: string | null;

  @DateTimeField()
  createdAt!: string;

  @DateTimeField()
  updatedAt!: string;
}

export class BulkAdminsResultDto {
  @ApiProperty({ enum: BULK_ACTIONS })
  action!: BulkAction;

  @ApiProperty({ type: [String], format: 'uuid', description: 'Every id given: all of them were changed' })
  ids!: string[];

  @ApiProperty({ type: 'integer', description: 'How many users this changed (some may have been so already)' })
  changed!: number;
}
