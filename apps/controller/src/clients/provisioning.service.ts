import { Injectable } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import { randomUUID } from 'node:crypto';
import { allocateMany, parseInterfaceSubnet, poolCapacity } from '#libs/wireguard/address-pool.js';
import { cidrContains, formatCidr, ipToInt } from '#libs/wireguard/ipv4.js';
import { generateKeyPairs, generatePresharedKeys } from '#libs/wireguard/key-pairs.js';
import { generateKeyPair, generatePresharedKey } from '#libs/wireguard/keys.js';
import type { OperatorScope } from '../auth/operator-scope.js';
import { badRequest, notFound } from '../http/api-error.js';
import { mapUniqueViolations } from '../database/unique-violations.js';
import { AccountsRepository, type LockedInterface, type NewAccount } from './accounts.repository.js';
import { ClientsRepository, type NewClient } from './clients.repository.js';
import { DevicesRepository, type NewDevice } from './devices.repository.js';

/** Who creates clients: every creation (one, a batch, an import) names its user, who owns them. */
export type Actor = Pick<OperatorScope, 'userId'>;

/** An account's keys and address brought along (an import): kept as they are, not generated. */
export interface KeptAccount {
  ip: string;
  privateKey: string;
  publicKey: string;
  presharedKey: string;
}

export interface DeviceToCreate {
  name: string;
  /** Kept keys and address per interface id; an interface not named here gets new ones. */
  kept?: ReadonlyMap<string, KeptAccount>;
}

/** A new client's row; its owner is the actor creating it (createClients stamps it). */
export interface ClientToCreate extends Omit<NewClient, 'ownerId' | 'deviceCount' | 'interfaceIds'> {
  devices: readonly DeviceToCreate[];
}

/**
 * Accounts are a device's peers, one per interface the client is attached to: their keys and
 * addresses. Everything here runs inside the caller's transaction (`em`).
 */
@Injectable()
export class ProvisioningService {
  constructor(
    private readonly accounts: AccountsRepository,
    private readonly clients: ClientsRepository,
    private readonly devices: DevicesRepository,
  ) {}

  /**
   * The one place clients are created (POST /api/clients, a batch, an import): their rows, their
   * links to `interfaces` (locked by the caller), their devices and one account per device per
   * interface, with kept keys and addresses where given and new ones elsewhere, in multi-row
   * statements. Runs in the caller's transaction, which also bumps the nodes' revisions once.
   * `actor` is who creates them: they own them (docs/operators.md, "Client ownership").
   *
   * Each client row is written once: its device count and interface ids go in with it, so the
   * summary triggers on devices and client_interfaces find nothing to rewrite
   * (Migration20261126210200_client_writes). New key pairs are made on a worker thread while
   * the rows go in (generateKeyPairs), and awaited only for the accounts.
   */
  async createClients(
    em: EntityManager,
    actor: Actor,
    clients: readonly ClientToCreate[],
    interfaces: readonly LockedInterface[],
    now: Date,
  ): Promise<void> {
    if (clients.length === 0) return;
    const devices: (NewDevice & DeviceToCreate)[] = clients.flatMap((client) =>
      client.devices.map((device) => ({ ...device, id: randomUUID(), clientId: client.id })),
    );
    const fresh = interfaces.map((iface) => devices.filter((device) => !device.kept?.has(iface.id)));
    const keys = generateKeyPairs(fresh.reduce((sum, list) => sum + list.length, 0));
    // Awaited below; until then a failed insert must not leave the worker's failure unhandled.
    keys.catch(() => undefined);
    // As the summary trigger orders them: uuids compare as their lower-case text does.
    const interfaceIds = interfaces.map((iface) => iface.id).sort();
    await this.clients.insertMany(
      em,
      clients.map((client) => ({
        ...client,
        ownerId: actor.userId,
        deviceCount: client.devices.length,
        interfaceIds,
      })),
    );
    await this.clients.attachMany(
      em,
      clients.flatMap((client) => interfaces.map((iface) => ({ clientId: client.id, interfaceId: iface.id }))),
    );
    await this.devices.insertMany(em, devices, now);
    const addresses: string[][] = [];
    for (const [index, iface] of interfaces.entries()) {
      const reserved = devices.flatMap((device) => device.kept?.get(iface.id)?.ip ?? []);
      addresses.push(await this.allocateAddresses(em, iface, fresh[index].length, reserved));
    }
    const pairs = await keys;
    const presharedKeys = generatePresharedKeys(pairs.length);
    const accounts: NewAccount[] = [];
    for (const [index, iface] of interfaces.entries()) {
      fresh[index].forEach((device, position) => {
        const next = accounts.length;
        accounts.push({
          id: randomUUID(),
          deviceId: device.id,
          interfaceId: iface.id,
          nodeId: iface.nodeId,
          ip: addresses[index][position],
          ...pairs[next],
          presharedKey: presharedKeys[next],
          createdAt: now,
        });
      });
    }
    for (const iface of interfaces) {
      for (const device of devices) {
        const account = device.kept?.get(iface.id);
        if (!account) continue;
        accounts.push({
          id: randomUUID(),
          deviceId: device.id,
          interfaceId: iface.id,
          nodeId: iface.nodeId,
          ...account,
          createdAt: now,
        });
      }
    }
    // Kept addresses and keys were checked before (imports); the database is the backstop.
    await mapUniqueViolations(() => this.accounts.insert(em, accounts), {
      accounts_interface_id_ip_unique: { field: 'ip', message: 'an address is already in use on the interface' },
      accounts_interface_id_public_key_unique: {
        field: 'publicKey',
        message: 'a public key is already in use on the interface',
      },
    });
  }

  /**
   * Locks the interfaces an allocation draws from and returns them in the order given. Unknown
   * ids are a 404 naming `field`.
   */
  async lockInterfaces(em: EntityManager, ids: readonly string[], field = 'interfaceIds'): Promise<LockedInterface[]> {
    const wanted = [...new Set(ids)];
    const byId = await this.accounts.lockInterfaces(em, wanted);
    const missing = wanted.filter((id) => !byId.has(id));
    if (missing.length > 0) throw notFound(`interface ${missing[0]} not found`, field);
    return wanted.map((id) => byId.get(id)!);
  }

  /** One account per device per interface: its own key pair, preshared key and address. */
  async createAccounts(
    em: EntityManager,
    deviceIds: readonly string[],
    interfaces: readonly LockedInterface[],
    now: Date,
  ): Promise<void> {
    if (deviceIds.length === 0 || interfaces.length === 0) return;
    // Made (on a worker when many: a bulk attach) while the addresses are allocated.
    const keys = generateKeyPairs(deviceIds.length * interfaces.length);
    keys.catch(() => undefined);
    const addresses: string[][] = [];
    for (const iface of interfaces) addresses.push(await this.allocateAddresses(em, iface, deviceIds.length));
    const pairs = await keys;
    const presharedKeys = generatePresharedKeys(pairs.length);
    const accounts: NewAccount[] = interfaces.flatMap((iface, i) =>
      deviceIds.map((deviceId, index) => {
        const next = i * deviceIds.length + index;
        return {
          id: randomUUID(),
          deviceId,
          interfaceId: iface.id,
          nodeId: iface.nodeId,
          ip: addresses[i][index],
          ...pairs[next],
          presharedKey: presharedKeys[next],
          createdAt: now,
        };
      }),
    );
    await this.accounts.insert(em, accounts);
  }

  /**
   * `count` free addresses of a locked interface, in pool order after its cursor; moves the cursor.
   * The common case reads only a small window of candidates after the cursor (one index probe),
   * so allocation stays cheap on an interface with tens of thousands of devices; when the window
   * is crowded it falls back to reading every address in use. Both give the same answer.
   * `reserved`: addresses this transaction is about to take otherwise (kept by an import).
   */
  private async allocateAddresses(
    em: EntityManager,
    iface: LockedInterface,
    count: number,
    reserved: readonly string[] = [],
  ): Promise<string[]> {
    if (count === 0) return [];
    const subnet = parseInterfaceSubnet(iface.subnet);
    const capacity = poolCapacity(subnet);
    let picked: string[] | null = null;
    if (iface.cursor !== null && cidrContains(subnet, iface.cursor) && count <= capacity) {
      const candidates = allocateMany(subnet, [], Math.min(capacity, count * 2 + 16), { cursor: iface.cursor });
      if (candidates) {
        const used = await this.accounts.addressesInUse(em, iface.id, candidates);
        for (const ip of reserved) used.add(ip);
        const free = candidates.filter((ip) => !used.has(ip));
        if (free.length >= count) picked = free.slice(0, count);
      }
    }
    if (!picked) {
      const used = await this.accounts.addressesInUse(em, iface.id);
      picked = allocateMany(subnet, [...used, ...reserved], count, { cursor: iface.cursor });
    }
    if (!picked) {
      throw badRequest(
        `interface "${iface.name}" has no free address left for ${count === 1 ? 'another device' : `${count} more devices`}: ` +
          `its subnet ${formatCidr(subnet)} holds ${capacity} devices; give it a wider subnet`,
        'interfaceIds',
      );
    }
    iface.cursor = ipToInt(picked[picked.length - 1]);
    await this.accounts.moveCursor(em, iface.id, iface.cursor);
    return picked;
  }

  /** New key pairs and preshared keys for every account of the client (locked first); addresses stay. */
  async rotateKeys(em: EntityManager, clientId: string): Promise<number> {
    const ids = await this.accounts.lockOfClient(em, clientId);
    await this.accounts.replaceKeys(
      em,
      ids.map((id) => {
        const keys = generateKeyPair();
        return { id, privateKey: keys.privateKey, publicKey: keys.publicKey, presharedKey: generatePresharedKey() };
      }),
    );
    return ids.length;
  }
}
