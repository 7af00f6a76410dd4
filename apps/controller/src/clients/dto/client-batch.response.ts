import { ApiProperty } from '@nestjs/swagger';
import { IntField } from '../../http/api-fields.js';

/** What a batch created. */
export class ClientBatchResultDto {
  @IntField({ minimum: 1 })
  created!: number;

  @IntField({ minimum: 1 })
  devices!: number;

  @IntField({ minimum: 1 })
  accounts!: number;

  @ApiProperty({ description: 'The name of the first client created' })
  first!: string;

  @ApiProperty({ description: 'The name of the last client created' })
  last!: string;

  @ApiProperty({ type: [String], description: 'The ids of the clients created, in the order of their numbers' })
  ids!: string[];
}
