import { Body, Controller, Param, Query, StreamableFile } from '@nestjs/common';
import { CLIENT_MANAGERS } from '#libs/contracts/user-roles.js';
import { CallerScope, type OperatorScope } from '../auth/operator-scope.js';
import { IdPipe } from '../http/id.js';
import { Route } from '../http/route.decorator.js';
import { DevicesService } from './devices.service.js';
import { ConfigsQuery, CreateDeviceDto, DeviceProfileQuery } from './dto/device.dto.js';
import { ClientDetailDto, DeviceDto } from './dto/client.response.js';
import { ClientConfigsDto, ProfileDto } from './dto/profile.response.js';
import { DeletedDto } from '../http/api-fields.js';
import { PROFILE_MIME_TYPE, ProfilesService } from './profiles.service.js';

/** Devices and their profiles: the configs a device imports, one per interface and host. */
@Controller()
export class DevicesController {
  constructor(
    private readonly devices: DevicesService,
    private readonly profiles: ProfilesService,
  ) {}

  @Route({
    method: 'POST',
    path: 'clients/:id/devices',
    group: 'devices',
    roles: CLIENT_MANAGERS,
    summary: "Add a device to a client (an account on each of the client's interfaces); at most deviceLimit devices",
    example: { name: 'tablet' },
    // One transaction adds the device: its entry is written in it (docs/audit.md, "One write").
    audit: { action: 'devices.create', inChangeTransaction: true },
    status: 201,
    response: DeviceDto,
    errors: [409],
  })
  add(
    @Param('id', new IdPipe('client')) clientId: string,
    @Body() body: CreateDeviceDto,
    @CallerScope() scope: OperatorScope,
  ) {
    return this.devices.add(clientId, body.name, scope);
  }

  @Route({
    method: 'DELETE',
    path: 'devices/:id',
    group: 'devices',
    roles: CLIENT_MANAGERS,
    summary: 'Delete a device and its accounts (its addresses are not reused at once)',
    response: DeletedDto,
  })
  remove(@Param('id', new IdPipe('device')) id: string, @CallerScope() scope: OperatorScope) {
    return this.devices.remove(id, scope);
  }

  @Route({
    method: 'GET',
    path: 'devices/:id/profiles',
    group: 'devices',
    roles: CLIENT_MANAGERS,
    summary:
      'Every profile of a device: one WireGuard/AmneziaWG config per interface and host, as JSON or (format=zip) a zip of .conf files',
    query: { format: 'json (default) | zip' },
    response: [ProfileDto],
    files: ['application/zip'],
  })
  async deviceProfiles(
    @Param('id', new IdPipe('device')) id: string,
    @Query() query: ConfigsQuery,
    @CallerScope() scope: OperatorScope,
  ) {
    if (query.format !== 'zip') return this.profiles.deviceProfiles(id, scope);
    return zipAttachment(await this.profiles.deviceProfilesZip(id, scope));
  }

  @Route({
    method: 'GET',
    path: 'devices/:id/profile',
    group: 'devices',
    roles: CLIENT_MANAGERS,
    summary:
      "One config of a device: the given interface and host, else the first interface's first dial target; JSON or (format=conf) the file",
    query: {
      interfaceId: 'an interface the device has an account on (default: the first by name)',
      hostId: 'a dial target of that interface (default: the highest priority)',
      format: 'json (default) | conf',
    },
    response: ProfileDto,
    files: [PROFILE_MIME_TYPE],
  })
  async deviceProfile(
    @Param('id', new IdPipe('device')) id: string,
    @Query() query: DeviceProfileQuery,
    @CallerScope() scope: OperatorScope,
  ) {
    const profile = await this.profiles.deviceProfile(id, scope, query);
    if (query.format !== 'conf') return profile;
    const body = Buffer.from(profile.body, 'utf8');
    return new StreamableFile(body, {
      type: PROFILE_MIME_TYPE,
      disposition: `attachment; filename="${profile.filename}"`,
      length: body.length,
    });
  }

  @Route({
    method: 'POST',
    path: 'clients/:id/rotate-keys',
    group: 'devices',
    roles: CLIENT_MANAGERS,
    summary:
      "New key pairs and preshared keys for all of the client's accounts; addresses stay (re-download the profiles)",
    response: ClientDetailDto,
  })
  rotateKeys(@Param('id', new IdPipe('client')) id: string, @CallerScope() scope: OperatorScope) {
    return this.devices.rotateKeys(id, scope);
  }

  @Route({
    method: 'GET',
    path: 'clients/:id/configs',
    group: 'devices',
    roles: CLIENT_MANAGERS,
    summary: 'Every config of the client, per device and host, as JSON or (format=zip) a zip of .conf files',
    query: { format: 'json (default) | zip' },
    response: ClientConfigsDto,
    files: ['application/zip'],
  })
  async configs(
    @Param('id', new IdPipe('client')) id: string,
    @Query() query: ConfigsQuery,
    @CallerScope() scope: OperatorScope,
  ) {
    if (query.format !== 'zip') return this.profiles.clientConfigs(id, scope);
    return zipAttachment(await this.profiles.clientConfigsZip(id, scope));
  }
}

/** A zip sent as a download (the file name is already ASCII-safe). */
function zipAttachment({ filename, zip }: { filename: string; zip: Buffer }): StreamableFile {
  return new StreamableFile(zip, {
    type: 'application/zip',
    disposition: `attachment; filename="${filename}"`,
    length: zip.length,
  });
}
