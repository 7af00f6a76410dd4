import { Inject, Injectable } from '@nestjs/common';
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import { profileFilename, renderClientProfile } from '#libs/wireguard/profile.js';
import type { OwnerFilter } from '../auth/operator-scope.js';
import { notFound } from '../http/api-error.js';
import { dialTargets, type DialHost } from '../interfaces/dial-targets.js';
import { ClientsRepository } from './clients.repository.js';
import { ProfilesRepository, type ProfileSource } from './profiles.repository.js';
import { uniqueNames, zipTextFiles } from './zip.js';

/** wg-quick profiles; AmneziaWG ones use the same format with extra [Interface] keys. */
export const PROFILE_MIME_TYPE = 'application/x-wireguard-config';

/** One ready-to-import config of one device for one address of one of its interfaces. */
export interface Profile {
  filename: string;
  mimeType: string;
  /** The config text: the only place a device's private and preshared keys ever appear. */
  body: string;
  hostId: string | null;
  hostName: string;
  interfaceId: string;
  interfaceName: string;
}

export interface DeviceProfiles {
  deviceId: string;
  deviceName: string;
  profiles: Profile[];
}

export interface ClientConfigs {
  clientId: string;
  clientName: string;
  devices: DeviceProfiles[];
}

/** Profiles as .conf files of one zip, their names unique within it. */
function zipProfiles(profiles: readonly Profile[]): Promise<Buffer> {
  const names = uniqueNames(profiles.map((profile) => profile.filename));
  return zipTextFiles(
    profiles.map((profile, index) => ({ name: names[index], body: profile.body })),
    new Date(),
  );
}

/** A name as a safe file name stem (ASCII letters, digits, `_.-`; accents dropped), at most 64 characters. */
function fileStem(name: string, fallback: string): string {
  const stem =
    name
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '')
      .replace(/[^A-Za-z0-9_.-]+/g, '_')
      .replace(/^[._-]+|[._-]+$/g, '') || fallback;
  return stem.slice(0, 64);
}

/** Renders device profiles: one per account and dial target (enabled host, else the interface endpoint). */
@Injectable()
export class ProfilesService {
  constructor(
    @Inject(MikroORM) private readonly orm: MikroORM,
    private readonly clients: ClientsRepository,
    private readonly sources: ProfilesRepository,
  ) {}

  async deviceProfiles(deviceId: string, scope: OwnerFilter): Promise<Profile[]> {
    return (await this.deviceWithProfiles(deviceId, scope)).device.profiles;
  }

  /** Every profile of one device as .conf files in one zip (`<client>-<device>-profiles.zip`). */
  async deviceProfilesZip(deviceId: string, scope: OwnerFilter): Promise<{ filename: string; zip: Buffer }> {
    const { clientName, device } = await this.deviceWithProfiles(deviceId, scope);
    return {
      filename: `${fileStem(`${clientName}-${device.deviceName}`, 'device')}-profiles.zip`,
      zip: await zipProfiles(device.profiles),
    };
  }

  private async deviceWithProfiles(
    deviceId: string,
    scope: OwnerFilter,
  ): Promise<{ clientName: string; device: DeviceProfiles }> {
    const em = this.orm.em.fork();
    const rows = await this.sources.ofDevice(em, deviceId, scope);
    if (rows.length === 0) throw notFound('device not found', 'id');
    const [device] = await this.render(em, rows);
    return { clientName: rows[0].clientName, device };
  }

  /**
   * One config of the device: the given interface and host, or the first of each (interfaces by
   * name, hosts by priority). A selection the device has no config for is a 404 naming it.
   */
  async deviceProfile(
    deviceId: string,
    scope: OwnerFilter,
    choice: { interfaceId?: string; hostId?: string } = {},
  ): Promise<Profile> {
    const profiles = await this.deviceProfiles(deviceId, scope);
    const onInterface = choice.interfaceId
      ? profiles.filter((profile) => profile.interfaceId === choice.interfaceId)
      : profiles;
    if (onInterface.length === 0) {
      if (choice.interfaceId) throw notFound('the device has no account on this interface', 'interfaceId');
      throw notFound('the device has no config (no account on any interface)', 'id');
    }
    const profile = choice.hostId ? onInterface.find((p) => p.hostId === choice.hostId) : onInterface[0];
    if (!profile) throw notFound("no such host among the interface's dial targets", 'hostId');
    return profile;
  }

  /**
   * A client the caller has just read (the public subscription page): its configs in one round
   * trip, a prepared statement, instead of three queries.
   */
  async knownClientConfigs(clientId: string, clientName: string): Promise<ClientConfigs> {
    const em = this.orm.em.fork();
    const { sources, hosts } = await this.sources.ofClientWithHosts(em, clientId);
    return { clientId, clientName, devices: await this.render(em, sources, hosts) };
  }

  async clientConfigs(clientId: string, scope: OwnerFilter): Promise<ClientConfigs> {
    const em = this.orm.em.fork();
    const clientName = await this.clients.nameOf(em, clientId, scope);
    if (clientName === undefined) throw notFound('client not found', 'id');
    const rows = await this.sources.ofClient(em, clientId, scope);
    return { clientId, clientName, devices: await this.render(em, rows) };
  }

  /** Every profile of the client as .conf files in one zip, names unique within it. */
  async clientConfigsZip(clientId: string, scope: OwnerFilter): Promise<{ filename: string; zip: Buffer }> {
    return this.zipConfigs(await this.clientConfigs(clientId, scope));
  }

  /** Configs already rendered, as clientConfigsZip packs them. */
  async zipConfigs(configs: ClientConfigs): Promise<{ filename: string; zip: Buffer }> {
    return {
      filename: `${fileStem(configs.clientName, 'client')}-configs.zip`,
      zip: await zipProfiles(configs.devices.flatMap((device) => device.profiles)),
    };
  }

  /**
   * One profile per account and dial target: each enabled host of the interface the client's
   * groups let it carry (host groups), else the interface's own endpoint.
   */
  private async render(
    em: EntityManager,
    rows: readonly ProfileSource[],
    knownHosts?: Map<string, DialHost[]>,
  ): Promise<DeviceProfiles[]> {
    const interfaceIds = [...new Set(rows.flatMap((row) => (row.account ? [row.account.interfaceId] : [])))];
    const hostsByInterface = knownHosts ?? (await this.sources.hostsOf(em, interfaceIds));
    const devices = new Map<string, DeviceProfiles>();
    for (const row of rows) {
      let device = devices.get(row.deviceId);
      if (!device) {
        device = { deviceId: row.deviceId, deviceName: row.deviceName, profiles: [] };
        devices.set(row.deviceId, device);
      }
      const account = row.account;
      if (!account) continue;
      const targets = dialTargets(account, hostsByInterface.get(account.interfaceId) ?? [], row.clientGroups);
      for (const target of targets) {
        device.profiles.push({
          filename: profileFilename(row.clientName, device.deviceName, target.hostName, account.interfaceName),
          mimeType: PROFILE_MIME_TYPE,
          body: renderClientProfile({
            privateKey: account.privateKey,
            address: account.ip,
            dns: account.dns,
            mtu: account.mtu,
            serverPublicKey: account.serverPublicKey,
            presharedKey: account.presharedKey,
            endpointHost: target.address,
            endpointPort: target.port,
            amnezia: account.mode === 'amnezia' ? account.awg : null,
          }),
          hostId: target.hostId,
          hostName: target.hostName,
          interfaceId: account.interfaceId,
          interfaceName: account.interfaceName,
        });
      }
    }
    return [...devices.values()];
  }
}
