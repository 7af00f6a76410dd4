import {
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  Length,
  Matches,
} from 'class-validator';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ROUTE_GROUPS, type RouteGroup } from '#libs/contracts/route-groups.js';
import { IsDateTimeWithZone, OptionalNotNull } from '../../http/validators.js';

const NAME_RULE = /^[^\u0000-\u001f]*$/; // length is checked separately, with its own message

export class CreateTokenDto {
  @ApiProperty({ description: 'No control characters' })
  @IsString()
  @Length(1, 64)
  @Matches(NAME_RULE, { message: 'name must not contain control characters' })
  name!: string;

  @ApiPropertyOptional({ description: 'Only GET (and HEAD) routes; default false' })
  @OptionalNotNull()
  @IsBoolean()
  readOnly?: boolean;

  @ApiPropertyOptional({
    description: 'With a time zone, in the future; past it the token answers 401. null or absent: never expires',
  })
  @IsOptional()
  @IsDateTimeWithZone()
  expiresAt?: string | null;

  @ApiPropertyOptional({
    description: "Only routes of these groups (the route table's groups, GET /api/docs); null or absent: every group",
  })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1, { message: 'routeGroups must name at least one group (or be null for every group)' })
  @IsIn(ROUTE_GROUPS, { each: true, message: `each of routeGroups must be one of ${ROUTE_GROUPS.join(', ')}` })
  @ArrayUnique({ message: 'routeGroups must not repeat a group' })
  routeGroups?: RouteGroup[] | null;
}

export class UpdateTokenDto {
  @ApiPropertyOptional({ description: 'No control characters' })
  @OptionalNotNull()
  @IsString()
  @Length(1, 64)
  @Matches(NAME_RULE, { message: 'name must not contain control characters' })
  name?: string;

  @ApiPropertyOptional({ description: 'false disables the token at once' })
  @OptionalNotNull()
  @IsBoolean()
  enabled?: boolean;
}
