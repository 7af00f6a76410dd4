import { ApiProperty } from '@nestjs/swagger';
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

  @DateTimeField()
  createdAt!: string;
}

export class IssuedTokenDto extends TokenDto {
  @ApiProperty({ description: 'The token in the clear (`wrn_…`): shown this once only' })
  token!: string;

  @ApiProperty({ example: 'Authorization: Bearer <token>' })
  usage!: string;
}
