import { ApiProperty } from '@nestjs/swagger';
import { DateTimeField, IdField, IntField } from '../../http/api-fields.js';
import { SHARING_ACTIONS, type SharingAction } from '../../settings/panel-settings.js';

export class EndpointMoveDto {
  @ApiProperty({ description: 'The address the device’s endpoint moved to (without the port)' })
  address!: string;

  @DateTimeField({ description: 'When the endpoint first moved to it' })
  firstSeen!: string;

  @DateTimeField({ description: 'When the endpoint last moved to it' })
  lastSeen!: string;

  @IntField({ description: 'How often the endpoint moved to it' })
  moves!: number;
}

export class SharedDeviceDto {
  @IdField()
  clientId!: string;

  @ApiProperty()
  clientName!: string;

  @ApiProperty({ description: 'The client’s status now (disabled when the rule disabled it)' })
  clientStatus!: string;

  @IdField()
  deviceId!: string;

  @ApiProperty()
  deviceName!: string;

  @ApiProperty({
    enum: ['many-addresses', 'several-at-once'],
    description:
      'many-addresses: at least sharingMaxAddresses addresses in the window; several-at-once: it keeps returning to addresses it left',
  })
  reason!: string;

  @ApiProperty({ type: [EndpointMoveDto], description: 'The evidence, newest first' })
  addresses!: EndpointMoveDto[];
}

export class SharingDto {
  @IntField({ description: 'Minutes looked back (setting sharingWindowMinutes)' })
  windowMinutes!: number;

  @IntField({ description: 'Addresses that count as sharing (setting sharingMaxAddresses)' })
  maxAddresses!: number;

  @ApiProperty({ enum: SHARING_ACTIONS, description: 'What the rule does (setting sharingAction)' })
  action!: SharingAction;

  @DateTimeField({ description: 'Start of the window' })
  since!: string;

  @ApiProperty({ type: [SharedDeviceDto] })
  devices!: SharedDeviceDto[];
}
