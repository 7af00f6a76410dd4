import type { EntityManager } from '@mikro-orm/postgresql';
import { randomUUID } from 'node:crypto';
import { allocateMany, parseInterfaceSubnet, poolCapacity } from '#libs/wireguard/address-pool.js';
import { cidrContains, formatCidr, ipToInt } from '#libs/wireguard/ipv4.js';
import { generateKeyPair, generatePresharedKey } from '#libs/wireguard/keys.js';
import { badRequest, notFound } from '../http/api-error.js';
import { readNullableNumber, valuesPlaceholders } from './sql.js';

/**
 * Accounts are a device's peers, one per interface the client is attached to. Everything here
 * runs inside the caller's transaction (`em` is the transactional entity manager).
 */

/** An interface row locked for this transaction: its address pool and cursor are ours until commit. */
export interface LockedInterface {
  id: string;
  nodeId: string;
  name: string;
  subnet: string;
  cursor: number | null;
}

/**
 * Locks the interfaces (`for update`, in id order so two transactions never wait on each other
 * in a circle) and returns them in the order given. Unknown ids are a 404 naming `field`.
 */
export async function lockInterfaces(em: EntityManager, ids: readonly string[], field = 'interfaceIds'): Promise<LockedInterface[]> {
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return [];
  const rows = await em.execute<Record<string, unknown>[]>(
    `select id, node_id, name, subnet, allocation_cursor from interfaces
      where id = any(array[?]::uuid[]) order by id for update`,
    [wanted],
  );
  const byId = new Map(
    rows.map((row) => [
      row.id as string,
      {
        id: row.id as string,
        nodeId: row.node_id as string,
        name: row.name as string,
        subnet: row.subnet as string,
        cursor: readNullableNumber(row.allocation_cursor),
      },
    ]),
  );
  const missing = wanted.filter((id) => !byId.has(id));
  if (missing.length > 0) throw notFound(`interface ${missing[0]} not found`, field);
  return wanted.map((id) => byId.get(id)!);
}

/**
 * `count` free addresses of a locked interface, in pool order after its cursor; moves the cursor.
 * The common case reads only a small window of candidates after the cursor (one index probe),
 * so allocation stays cheap on an interface with tens of thousands of devices; when the window
 * is crowded it falls back to reading every address in use. Both give the same answer.
 */
export async function allocateAddresses(em: EntityManager, iface: LockedInterface, count: number): Promise<string[]> {
  const subnet = parseInterfaceSubnet(iface.subnet);
  const capacity = poolCapacity(subnet);
  let picked: string[] | null = null;
  if (iface.cursor !== null && cidrContains(subnet, iface.cursor) && count <= capacity) {
    const candidates = allocateMany(subnet, [], Math.min(capacity, count * 2 + 16), { cursor: iface.cursor });
    if (candidates) {
      const taken = await em.execute<{ ip: string }[]>(
        `select ip from accounts where interface_id = ? and ip = any(array[?]::text[])`,
        [iface.id, candidates],
      );
      const used = new Set(taken.map((row) => row.ip));
      const free = candidates.filter((ip) => !used.has(ip));
      if (free.length >= count) picked = free.slice(0, count);
    }
  }
  if (!picked) {
    const used = await em.execute<{ ip: string }[]>(`select ip from accounts where interface_id = ?`, [iface.id]);
    picked = allocateMany(
      subnet,
      used.map((row) => row.ip),
      count,
      { cursor: iface.cursor },
    );
  }
  if (!picked) {
    throw badRequest(
      `interface "${iface.name}" has no free address left for ${count === 1 ? 'another device' : `${count} more devices`}: ` +
        `its subnet ${formatCidr(subnet)} holds ${capacity} devices; give it a wider subnet`,
      'interfaceIds',
    );
  }
  iface.cursor = ipToInt(picked[picked.length - 1]);
  await em.execute(`update interfaces set allocation_cursor = ? where id = ?`, [iface.cursor, iface.id]);
  return picked;
}

/** One account per device per interface: its own key pair, preshared key and address. */
export async function createAccounts(
  em: EntityManager,
  deviceIds: readonly string[],
  interfaces: readonly LockedInterface[],
  now: Date,
): Promise<void> {
  if (deviceIds.length === 0 || interfaces.length === 0) return;
  const values: unknown[] = [];
  for (const iface of interfaces) {
    const addresses = await allocateAddresses(em, iface, deviceIds.length);
    deviceIds.forEach((deviceId, index) => {
      const keys = generateKeyPair();
      values.push(randomUUID(), deviceId, iface.id, iface.nodeId, addresses[index], keys.privateKey, keys.publicKey, generatePresharedKey(), now);
    });
  }
  const columns = 9;
  await em.execute(
    `insert into accounts (id, device_id, interface_id, node_id, ip, private_key, public_key, preshared_key, created_at)
     values ${valuesPlaceholders(values.length / columns, columns)}`,
    values,
  );
}

/**
 * Inserts devices of one client; returns their ids in the order of `names`. Devices created
 * together are a microsecond apart, so listings (ordered by creation) keep the order given.
 */
export async function createDevices(em: EntityManager, clientId: string, names: readonly string[], now: Date): Promise<string[]> {
  const ids = names.map(() => randomUUID());
  const values = names.flatMap((name, index) => [ids[index], clientId, name, now, index]);
  const rows = names.map(() => `(?, ?, ?, ?::timestamptz + ? * interval '1 microsecond')`).join(', ');
  await em.execute(`insert into devices (id, client_id, name, created_at) values ${rows}`, values);
  return ids;
}

/** The nodes that carry any of these clients' interfaces (whose desired state includes them). */
export async function nodesOfClients(em: EntityManager, clientIds: readonly string[]): Promise<string[]> {
  if (clientIds.length === 0) return [];
  const rows = await em.execute<{ node_id: string }[]>(
    `select distinct i.node_id from client_interfaces ci join interfaces i on i.id = ci.interface_id
      where ci.client_id = any(array[?]::uuid[])`,
    [[...clientIds]],
  );
  return rows.map((row) => row.node_id);
}
