import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';
import { IdField } from '../../http/api-fields.js';

export class InterfaceUsageResetDto {
  @IdField()
  id!: string;

  @ApiProperty({ type: 'integer', description: 'Accounts on the interface, each now at zero' })
  accounts!: number;

  @ApiProperty({ type: 'integer', description: "Bytes taken off their devices' and clients' totals (up and down)" })
  bytes!: number;

  @ApiProperty({ type: 'integer', description: 'Clients whose status changed (exhausted back to active)' })
  statusChanged!: number;
}

export class ClearInterfaceDto {
  @ApiProperty({ description: "The interface's name, typed again: what makes the request deliberate" })
  @IsString()
  @Length(1, 64)
  confirm!: string;
}

export class InterfaceClearedDto {
  @IdField()
  id!: string;

  @ApiProperty({ type: 'integer', description: 'Accounts removed: each device lost its peer on the interface' })
  accountsRemoved!: number;

  @ApiProperty({
    type: 'integer',
    description: 'Clients no longer attached to the interface (they stay, with their usage)',
  })
  clientsDetached!: number;
}
