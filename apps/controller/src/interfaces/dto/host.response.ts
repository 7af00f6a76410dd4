import { ApiProperty } from '@nestjs/swagger';
import { DateTimeField, IdField, IntField } from '../../http/api-fields.js';

export class HostDto {
  @IdField()
  id!: string;

  @IdField()
  interfaceId!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty()
  address!: string;

  @IntField({ minimum: 0, maximum: 65535, description: "As stored: 0 means the interface's listen port" })
  port!: number;

  @IntField({ minimum: 1, maximum: 65535, description: 'The port clients actually dial' })
  effectivePort!: number;

  @IntField()
  priority!: number;

  @ApiProperty()
  enabled!: boolean;

  @DateTimeField()
  createdAt!: string;

  @DateTimeField()
  updatedAt!: string;
}
