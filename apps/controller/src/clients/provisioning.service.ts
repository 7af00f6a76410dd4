import { Injectable } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import { randomUUID } from 'node:crypto';
import { allocateMany, parseInterfaceSubnet, poolCapacity } from '#libs/wireguard/address-pool.js';
import { cidrContains, formatCidr, ipToInt } from '#libs/wireguard/ipv4.js';
import { generateKeyPair, generatePresharedKey } from '#libs/wireguard/keys.js';
import { badRequest, notFound } from '../http/api-error.js';
import { AccountsRepository, type LockedInterface, type NewAccount } from './accounts.repository.js';

/**
 * Accounts are a device's peers, one per interface the client is attached to: their keys and
 * addresses. Everything here runs inside the caller's transaction (`em`).
 */
@Injectable()
export class ProvisioningService {
  constructor(private readonly accounts: AccountsRepository) {}

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
    const accounts: NewAccount[] = [];
    for (const iface of interfaces) {
      const addresses = await this.allocateAddresses(em, iface, deviceIds.length);
      deviceIds.forEach((deviceId, index) => {
        const keys = generateKeyPair();
        accounts.push({
          id: randomUUID(),
          deviceId,
          interfaceId: iface.id,
          nodeId: iface.nodeId,
          ip: addresses[index],
          privateKey: keys.privateKey,
          publicKey: keys.publicKey,
          presharedKey: generatePresharedKey(),
          createdAt: now,
        });
      });
    }
    await this.accounts.insert(em, accounts);
  }

  /**
   * `count` free addresses of a locked interface, in pool order after its cursor; moves the cursor.
   * The common case reads only a small window of candidates after the cursor (one index probe),
   * so allocation stays cheap on an interface with tens of thousands of devices; when the window
   * is crowded it falls back to reading every address in use. Both give the same answer.
   */
  private async allocateAddresses(em: EntityManager, iface: LockedInterface, count: number): Promise<string[]> {
    const subnet = parseInterfaceSubnet(iface.subnet);
    const capacity = poolCapacity(subnet);
    let picked: string[] | null = null;
    if (iface.cursor !== null && cidrContains(subnet, iface.cursor) && count <= capacity) {
      const candidates = allocateMany(subnet, [], Math.min(capacity, count * 2 + 16), { cursor: iface.cursor });
      if (candidates) {
        const used = await this.accounts.addressesInUse(em, iface.id, candidates);
        const free = candidates.filter((ip) => !used.has(ip));
        if (free.length >= count) picked = free.slice(0, count);
      }
    }
    if (!picked) {
      const used = await this.accounts.addressesInUse(em, iface.id);
      picked = allocateMany(subnet, [...used], count, { cursor: iface.cursor });
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
