import { ApiProperty } from '@nestjs/swagger';
import { ROUTE_GROUPS, type RouteGroup } from '#libs/contracts/route-groups.js';
import { DateTimeField, IdField } from '../../http/api-fields.js';

export class TokenDto {
  @IdField()
  id!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty({ description: 'The first characters of the token, to tell tokens apart' })
  hint!: string;

  @ApiProperty()
  enabled!: boolean;

  @ApiProperty({ description: 'Username of the account the token acts for' })
  owner!: string;

  @DateTimeField({ nullable: true, description: 'Kept to the minute' })
  lastUsedAt!: string | null;

  @ApiProperty({ description: 'Only GET (and HEAD) routes' })
  readOnly!: boolean;

  @DateTimeField({ nullable: true, description: 'Past it the token answers 401; null: never expires' })
  expiresAt!: string | null;

  @ApiProperty({ description: 'Whether the expiry has passed (the token answers 401)' })
  expired!: boolean;

  @ApiProperty({
    enum: ROUTE_GROUPS,
    isArray: true,
    nullable: true,
    description: 'Only routes of these groups; null: every group its role may call',
  })
  routeGroups!: RouteGroup[] | null;

  @DateTimeField()
  createdAt!: string;
}

export class IssuedTokenDto extends TokenDto {
  @ApiProperty({ description: 'The token in the clear (`wrn_…`): shown this once only' })
  token!: string;

  @ApiProperty({ example: 'Authorization: Bearer <token>' })
  usage!: string;
}
