import { Inject, Injectable } from '@nestjs/common';
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import { generateKeyPair, generatePresharedKey } from '#libs/wireguard/keys.js';
import { conflict, notFound } from '../http/api-error.js';
import { bumpRevisions } from '../revisions/revisions.js';
import { DEVICE_ACCOUNT_COLUMNS, toDeviceViews, type ClientRow, type DeviceView } from './client-view.js';
import { ClientsService, countDevices, lockClient, type ClientDetail } from './clients.service.js';
import { createAccounts, createDevices, lockInterfaces, nodesOfClients } from './provisioning.js';
import { valuesPlaceholders } from './sql.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A client's devices: adding one (within the device limit), removing one, rotating keys. */
@Injectable()
export class DevicesService {
  constructor(
    @Inject(MikroORM) private readonly orm: MikroORM,
    private readonly clients: ClientsService,
  ) {}

  /**
   * "At most deviceLimit devices", enforced atomically: the client row is locked for the whole
   * transaction, so concurrent additions to one client run one after another and each counts the
   * devices the previous ones committed.
   */
  async add(clientId: string, name: string): Promise<DeviceView> {
    const now = new Date();
    const deviceId = await this.orm.em.fork().transactional(async (em) => {
      const client = await lockClient(em, clientId);
      const devices = await countDevices(em, clientId);
      if (client.deviceLimit > 0 && devices >= client.deviceLimit) {
        throw conflict(
          `the client already has ${devices} of at most ${client.deviceLimit} devices; raise deviceLimit or delete a device`,
          'deviceLimit',
        );
      }
      const [taken] = await em.execute(`select 1 from devices where client_id = ? and lower(name) = lower(?)`, [clientId, name]);
      if (taken) throw conflict(`the client already has a device named "${name}" (case is ignored)`, 'name');
      const interfaceIds = await em.execute<{ interface_id: string }[]>(
        `select interface_id from client_interfaces where client_id = ?`,
        [clientId],
      );
      const interfaces = await lockInterfaces(em, interfaceIds.map((row) => row.interface_id));
      const [id] = await createDevices(em, clientId, [name], now);
      await createAccounts(em, [id], interfaces, now);
      await bumpRevisions(em, interfaces.map((iface) => iface.nodeId));
      return id;
    });
    return this.get(this.orm.em.fork(), deviceId);
  }

  async remove(deviceId: string): Promise<{ id: string; deleted: true }> {
    await this.orm.em.fork().transactional(async (em) => {
      const clientId = await this.clientOf(em, deviceId);
      // The same lock as add(): a removal and an addition on one client never interleave.
      await lockClient(em, clientId);
      const nodes = await em.execute<{ node_id: string }[]>(`select distinct node_id from accounts where device_id = ?`, [deviceId]);
      const deleted = await em.execute<{ id: string }[]>(`delete from devices where id = ? returning id`, [deviceId]);
      if (deleted.length === 0) throw notFound('device not found', 'id');
      await bumpRevisions(em, nodes.map((row) => row.node_id));
    });
    return { id: deviceId, deleted: true };
  }

  /** New key pairs and preshared keys for every account of the client; addresses stay. */
  async rotateKeys(clientId: string): Promise<ClientDetail> {
    await this.orm.em.fork().transactional(async (em) => {
      await lockClient(em, clientId);
      const accounts = await em.execute<{ id: string }[]>(
        `select a.id from accounts a join devices d on d.id = a.device_id where d.client_id = ? order by a.id for update of a`,
        [clientId],
      );
      if (accounts.length > 0) {
        const values = accounts.flatMap((account) => {
          const keys = generateKeyPair();
          return [account.id, keys.privateKey, keys.publicKey, generatePresharedKey()];
        });
        await em.execute(
          `update accounts a set private_key = v.private_key, public_key = v.public_key, preshared_key = v.preshared_key
             from (values ${valuesPlaceholders(accounts.length, 4)}) as v(id, private_key, public_key, preshared_key)
            where a.id = v.id::uuid`,
          values,
        );
        await bumpRevisions(em, await nodesOfClients(em, [clientId]));
      }
    });
    return this.clients.get(clientId);
  }

  private async get(em: EntityManager, deviceId: string): Promise<DeviceView> {
    const rows = await em.execute<ClientRow[]>(
      `select ${DEVICE_ACCOUNT_COLUMNS}
         from devices d left join accounts a on a.device_id = d.id
        where d.id = ? order by a.interface_id`,
      [deviceId],
    );
    const [device] = toDeviceViews(rows);
    if (!device) throw notFound('device not found', 'id');
    return device;
  }

  private async clientOf(em: EntityManager, deviceId: string): Promise<string> {
    const [row] = UUID.test(deviceId)
      ? await em.execute<{ client_id: string }[]>(`select client_id from devices where id = ?`, [deviceId])
      : [];
    if (!row) throw notFound('device not found', 'id');
    return row.client_id;
  }
}
