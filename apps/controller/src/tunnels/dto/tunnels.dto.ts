import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString } from 'class-validator';
import { IdField } from '../../http/api-fields.js';
import { OptionalNotNull } from '../../http/validators.js';

export class TunnelsNodeDto {
  @ApiPropertyOptional({ description: 'The node whose tunnels these are; defaults to the local node' })
  @OptionalNotNull()
  @IsString()
  nodeId?: string;
}

export class TunnelsOutcomeDto {
  @IdField({ description: 'The node' })
  nodeId!: string;

  @ApiProperty({ description: 'Every interface of the node is kept down until started' })
  tunnelsStopped!: boolean;

  @ApiProperty({ type: 'integer', description: 'Enabled interfaces of the node the request concerned' })
  interfaces!: number;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: "The node's desired revision after the change; null when nothing changed",
  })
  revision!: number | null;
}

export class InterfaceRestartDto {
  @IdField()
  id!: string;

  @IdField({ description: 'The node the interface runs on' })
  nodeId!: string;

  @ApiProperty({ type: 'integer', description: "The node's desired revision that carries the restart" })
  revision!: number;
}
