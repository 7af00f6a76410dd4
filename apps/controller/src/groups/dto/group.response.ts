import { ApiProperty } from '@nestjs/swagger';
import { DateTimeField, IntField } from '../../http/api-fields.js';

export class GroupDto {
  @ApiProperty()
  name!: string;

  @ApiProperty({ description: 'false: clients name the group but it has no defaults of its own (all zero)' })
  defined!: boolean;

  @ApiProperty()
  note!: string;

  @IntField({ minimum: 0 })
  quotaBytes!: number;

  @IntField({ minimum: 0 })
  expiryDays!: number;

  @IntField({ minimum: 0 })
  deviceLimit!: number;

  @ApiProperty({ type: [String] })
  interfaceIds!: string[];

  @IntField({ minimum: 0 })
  rateBitsPerSec!: number;

  @IntField({ minimum: 0, description: 'Clients whose groups include it' })
  members!: number;

  @DateTimeField({ nullable: true })
  createdAt!: string | null;

  @DateTimeField({ nullable: true })
  updatedAt!: string | null;
}

export class GroupNamesDto {
  @ApiProperty({ type: [String], description: 'Every group name: defined groups and names clients carry, sorted' })
  names!: string[];
}

export class GroupChangeDto {
  @ApiProperty()
  name!: string;

  @IntField({ minimum: 0, description: 'Clients whose groups changed' })
  clients!: number;
}
