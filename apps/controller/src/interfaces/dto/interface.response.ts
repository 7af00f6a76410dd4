import { ApiProperty } from '@nestjs/swagger';
import { DateTimeField, DeletedDto, IdField, IntField } from '../../http/api-fields.js';
import {
  INTERFACE_MODES,
  INTERFACE_PROTOCOLS,
  type InterfaceMode,
  type InterfaceProtocol,
} from '../interface.entity.js';

export class AmneziaParamsViewDto {
  @IntField() jc!: number;
  @IntField() jmin!: number;
  @IntField() jmax!: number;
  @IntField() s1!: number;
  @IntField() s2!: number;
  @IntField() h1!: number;
  @IntField() h2!: number;
  @IntField() h3!: number;
  @IntField() h4!: number;
}

export class InterfaceDto {
  @IdField()
  id!: string;

  @IdField()
  nodeId!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty({ enum: INTERFACE_PROTOCOLS })
  protocol!: InterfaceProtocol;

  @ApiProperty({ enum: INTERFACE_MODES })
  mode!: InterfaceMode;

  @IntField({ minimum: 1, maximum: 65535 })
  listenPort!: number;

  @ApiProperty({ example: '10.8.0.0/24' })
  subnet!: string;

  @ApiProperty({ description: "The server's address on the tunnel" })
  gateway!: string;

  @ApiProperty()
  endpointHost!: string;

  @IntField()
  mtu!: number;

  @ApiProperty({ type: [String] })
  dns!: string[];

  @ApiProperty({ type: String, nullable: true })
  natInterface!: string | null;

  @ApiProperty()
  enabled!: boolean;

  @ApiProperty()
  publicKey!: string;

  @ApiProperty({ type: AmneziaParamsViewDto, nullable: true, description: 'null in standard mode' })
  awg!: AmneziaParamsViewDto | null;

  @IntField({ minimum: 0, description: 'Addresses the pool can hand out' })
  capacity!: number;

  @IntField({ minimum: 0, description: 'Addresses handed out' })
  allocated!: number;

  @IntField({ minimum: 0 })
  clients!: number;

  @IntField({ minimum: 0, description: 'Devices with an account on the interface' })
  devices!: number;

  @IntField({ minimum: 0, description: 'Devices with a handshake on the interface within the last 3 minutes' })
  online!: number;

  @IntField({
    minimum: 0,
    description:
      "Bytes up and down through the interface, summed over its accounts (each since its client's last reset)",
  })
  usedBytes!: number;

  @ApiProperty({
    description: "The node's agent is connected and its last apply reported this interface (under its current name) up",
  })
  running!: boolean;

  @DateTimeField()
  createdAt!: string;

  @DateTimeField()
  updatedAt!: string;
}

export class InterfaceDeletedDto extends DeletedDto {
  @IntField({ minimum: 0 })
  accountsRemoved!: number;
}

export class InterfaceProfileDto {
  @IdField()
  id!: string;

  @ApiProperty({ example: 'wg0.conf' })
  filename!: string;

  @ApiProperty({ example: 'text/plain' })
  mimeType!: string;

  @ApiProperty({
    description:
      "The interface's server side in wg-quick form, as its node runs it; the private key and preshared keys are withheld",
  })
  body!: string;

  @ApiProperty({ type: 'integer', description: 'Peers in it: the enabled devices of active clients' })
  peers!: number;
}
