import { ApiProperty } from '@nestjs/swagger';
import { USER_ROLES, type UserRole } from '#libs/contracts/user-roles.js';
import { DateTimeField, IdField } from '../../http/api-fields.js';
import { BULK_ACTIONS, type BulkAction } from './admin.dto.js';

/** A reseller's ceilings (null: none) and their pool's account. */
export class ResellerAccountDto {
  @ApiProperty({ type: 'integer', nullable: true }) maxClients!: number | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'bytes' }) trafficPoolBytes!: number | null;
  @ApiProperty({ type: 'integer', nullable: true }) maxExpiryDays!: number | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'bytes' }) maxQuotaBytes!: number | null;
  @ApiProperty({ type: [String], format: 'uuid', nullable: true }) interfaceIds!: string[] | null;
  @ApiProperty({ type: [String], format: 'uuid', nullable: true }) nodeIds!: string[] | null;
  @ApiProperty({ type: 'integer', description: 'Bytes their clients used since the pool was last reset' })
  poolUsedBytes!: number;
  @ApiProperty({ type: 'integer', nullable: true, description: 'Bytes left in the pool; null without a pool' })
  poolLeftBytes!: number | null;
  @DateTimeField({ nullable: true, description: 'When the owner last reset the pool' })
  poolResetAt!: string | null;
  @ApiProperty({ type: 'integer', description: 'Clients they own now' })
  clients!: number;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'Clients they may still create; null without a ceiling',
  })
  clientsLeft!: number | null;
}

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

  @ApiProperty({
    type: ResellerAccountDto,
    nullable: true,
    description: "A reseller's ceilings, pool and clients; null for every other role",
  })
  reseller!: ResellerAccountDto | null;

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
