import { Inject, Injectable } from '@nestjs/common';
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import type { AmneziaParams } from '#libs/wireguard/amnezia.js';
import { profileFilename, renderClientProfile } from '#libs/wireguard/profile.js';
import { notFound } from '../http/api-error.js';
import { dialTargets, type DialHost } from '../interfaces/dial-targets.js';
import { requireClientId } from './clients.service.js';
import type { ClientRow } from './client-view.js';
import { readNumber } from './sql.js';
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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Everything a profile needs in one read: devices (even those without accounts), their accounts
 * with secrets, and their interfaces. Hosts come in a second query over just those interfaces.
 */
const PROFILE_SOURCE = `
  select c.id as client_id, c.name as client_name, d.id as device_id, d.name as device_name,
         a.interface_id, a.ip, a.private_key, a.preshared_key,
         i.name as interface_name, i.mode, i.listen_port, i.endpoint_host, i.mtu, i.dns,
         i.public_key as server_public_key, i.awg
    from devices d
    join clients c on c.id = d.client_id
    left join accounts a on a.device_id = d.id
    left join interfaces i on i.id = a.interface_id`;
const PROFILE_ORDER = 'order by d.created_at, d.id, i.name, i.id';

/** Renders device profiles: one per account and dial target (enabled host, else the interface endpoint). */
@Injectable()
export class ProfilesService {
  constructor(@Inject(MikroORM) private readonly orm: MikroORM) {}

  async deviceProfiles(deviceId: string): Promise<Profile[]> {
    if (!UUID.test(deviceId)) throw notFound('device not found', 'id');
    const em = this.orm.em.fork();
    const rows = await em.execute<ClientRow[]>(`${PROFILE_SOURCE} where d.id = ? ${PROFILE_ORDER}`, [deviceId]);
    if (rows.length === 0) throw notFound('device not found', 'id');
    const [device] = await render(em, rows);
    return device.profiles;
  }

  async clientConfigs(clientId: string): Promise<ClientConfigs> {
    requireClientId(clientId);
    const em = this.orm.em.fork();
    const [client] = await em.execute<{ name: string }[]>(`select name from clients where id = ?`, [clientId]);
    if (!client) throw notFound('client not found', 'id');
    const rows = await em.execute<ClientRow[]>(`${PROFILE_SOURCE} where d.client_id = ? ${PROFILE_ORDER}`, [clientId]);
    return { clientId, clientName: client.name, devices: await render(em, rows) };
  }

  /** Every profile of the client as .conf files in one zip, names unique within it. */
  async clientConfigsZip(clientId: string): Promise<{ filename: string; zip: Buffer }> {
    const configs = await this.clientConfigs(clientId);
    const profiles = configs.devices.flatMap((device) => device.profiles);
    const names = uniqueNames(profiles.map((profile) => profile.filename));
    const zip = await zipTextFiles(
      profiles.map((profile, index) => ({ name: names[index], body: profile.body })),
      new Date(),
    );
    const stem = configs.clientName
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '')
      .replace(/[^A-Za-z0-9_.-]+/g, '_').replace(/^[._-]+|[._-]+$/g, '') || 'client';
    return { filename: `${stem.slice(0, 64)}-configs.zip`, zip };
  }
}

async function render(em: EntityManager, rows: ClientRow[]): Promise<DeviceProfiles[]> {
  const interfaceIds = [...new Set(rows.map((row) => row.interface_id as string | null).filter((id) => id !== null))];
  const hostsByInterface = new Map<string, DialHost[]>();
  if (interfaceIds.length > 0) {
    const hosts = await em.execute<ClientRow[]>(
      `select id, interface_id, name, address, port, priority, enabled from hosts where interface_id = any(array[?]::uuid[])`,
      [interfaceIds],
    );
    for (const host of hosts) {
      const list = hostsByInterface.get(host.interface_id as string) ?? [];
      list.push({
        id: host.id as string,
        name: host.name as string,
        address: host.address as string,
        port: readNumber(host.port),
        priority: readNumber(host.priority),
        enabled: host.enabled as boolean,
      });
      hostsByInterface.set(host.interface_id as string, list);
    }
  }

  const devices = new Map<string, DeviceProfiles>();
  for (const row of rows) {
    const deviceId = row.device_id as string;
    let device = devices.get(deviceId);
    if (!device) {
      device = { deviceId, deviceName: row.device_name as string, profiles: [] };
      devices.set(deviceId, device);
    }
    if (!row.interface_id) continue;
    const interfaceId = row.interface_id as string;
    const interfaceName = row.interface_name as string;
    const listenPort = readNumber(row.listen_port);
    const targets = dialTargets({ endpointHost: row.endpoint_host as string, listenPort }, hostsByInterface.get(interfaceId) ?? []);
    for (const target of targets) {
      device.profiles.push({
        filename: profileFilename(row.client_name as string, device.deviceName, target.hostName, interfaceName),
        mimeType: PROFILE_MIME_TYPE,
        body: renderClientProfile({
          privateKey: row.private_key as string,
          address: row.ip as string,
          dns: (row.dns as string[] | null) ?? [],
          mtu: readNumber(row.mtu),
          serverPublicKey: row.server_public_key as string,
          presharedKey: row.preshared_key as string,
          endpointHost: target.address,
          endpointPort: target.port,
          amnezia: row.mode === 'amnezia' ? (row.awg as AmneziaParams | null) : null,
        }),
        hostId: target.hostId,
        hostName: target.hostName,
        interfaceId,
        interfaceName,
      });
    }
  }
  return [...devices.values()];
}
