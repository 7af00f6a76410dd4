import { ApiProperty } from '@nestjs/swagger';
import { IdField } from '../../http/api-fields.js';

/** One ready-to-import config of one device for one address of one of its interfaces. */
export class ProfileDto {
  @ApiProperty({ example: 'alice-phone-wg0.conf' })
  filename!: string;

  @ApiProperty()
  mimeType!: string;

  @ApiProperty({ description: 'The config text, private and preshared keys included' })
  body!: string;

  @IdField({ nullable: true, description: 'null: the interface endpoint itself, not a host' })
  hostId!: string | null;

  @ApiProperty()
  hostName!: string;

  @IdField()
  interfaceId!: string;

  @ApiProperty()
  interfaceName!: string;
}

export class DeviceProfilesDto {
  @IdField()
  deviceId!: string;

  @ApiProperty()
  deviceName!: string;

  @ApiProperty({ type: [ProfileDto] })
  profiles!: ProfileDto[];
}

export class ClientConfigsDto {
  @IdField()
  clientId!: string;

  @ApiProperty()
  clientName!: string;

  @ApiProperty({ type: [DeviceProfilesDto] })
  devices!: DeviceProfilesDto[];
}
