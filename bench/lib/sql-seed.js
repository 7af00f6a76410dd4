import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { builtFile } from './child.js';

const built = (path) => import(pathToFileURL(builtFile(path)).href);

/** A creation body's columns of `clients`, with the API's defaults for what it leaves out. */
export function clientSpecColumns(spec) {
  return {
    name: spec.name,
    note: spec.note ?? '',
    groups: spec.groups ?? [],
    telegram_id: spec.telegramId ?? null,
    quota_bytes: spec.quotaBytes ?? 0,
    expires_at: spec.expiresAt ?? null,
    device_limit: spec.deviceLimit,
    reset_cycle: spec.resetCycle ?? 'none',
  };
}

/**
 * Inserts clients with SQL, shaped exactly as POST /api/clients makes them: the client, its
 * device "device-1", its interface link and one account with a fresh key pair, preshared key and
 * the next address of the interface's pool; then moves the interface's allocation cursor past
 * them and the node's revision on, all in one transaction. `specs` are creation bodies (name,
 * note, groups, telegramId, quotaBytes, expiresAt, deviceLimit, resetCycle); their created_at
 * follow their order, a millisecond apart. They belong to `ownerId` (a user's id), else to the
 * panel's first owner, as the API gives them to whoever creates them (docs/operators.md).
 */
export async function insertClients(db, { iface, subnet, specs, ownerId = null }) {
  const { generateKeyPair, generatePresharedKey } = await built('libs/wireguard/keys.js');
  const { allocateMany } = await built('libs/wireguard/address-pool.js');
  const { ipToInt } = await built('libs/wireguard/ipv4.js');
  const { generateSubId } = await built('apps/controller/src/clients/sub-id.js');
  await db.query('begin');
  try {
    const [locked] = (await db.query('select allocation_cursor from interfaces where id = $1 for update', [iface.id]))
      .rows;
    const addresses = allocateMany(subnet, [], specs.length, {
      cursor: locked.allocation_cursor === null ? null : Number(locked.allocation_cursor),
    });
    if (!addresses) throw new Error('the pool is full');
    const createdAt = new Date();
    const clients = [];
    const devices = [];
    const accounts = [];
    for (const [i, spec] of specs.entries()) {
      const clientId = randomUUID();
      const deviceId = randomUUID();
      const keys = generateKeyPair();
      const at = new Date(createdAt.getTime() + i).toISOString();
      clients.push({
        id: clientId,
        ...clientSpecColumns(spec),
        sub_id: generateSubId(),
        created_at: at,
      });
      devices.push({ id: deviceId, client_id: clientId, created_at: at });
      accounts.push({
        id: randomUUID(),
        device_id: deviceId,
        ip: addresses[i],
        private_key: keys.privateKey,
        public_key: keys.publicKey,
        preshared_key: generatePresharedKey(),
        created_at: at,
      });
    }
    await db.query(
      `insert into clients (id, name, note, groups, telegram_id, quota_bytes, expires_at, device_limit, rate_bits_per_sec,
                            reset_cycle, start_on_first_use, duration_seconds, status, sub_id, owner_id, created_at, updated_at)
       select x.id, x.name, x.note, array(select jsonb_array_elements_text(x.groups)), x.telegram_id, x.quota_bytes, x.expires_at,
              x.device_limit, 0, x.reset_cycle, false, 0, 'active', x.sub_id,
              coalesce($2::uuid, (select id from users where role = 'owner' order by created_at, id limit 1)),
              x.created_at, x.created_at
         from jsonb_to_recordset($1::jsonb) as x(id uuid, name text, note text, groups jsonb, telegram_id bigint, quota_bytes bigint,
              expires_at timestamptz, device_limit int, reset_cycle text, sub_id text, created_at timestamptz)`,
      [JSON.stringify(clients), ownerId],
    );
    await db.query(
      `insert into client_interfaces (client_id, interface_id) select x.id, $2 from jsonb_to_recordset($1::jsonb) as x(id uuid)`,
      [JSON.stringify(clients.map((c) => ({ id: c.id }))), iface.id],
    );
    await db.query(
      `insert into devices (id, client_id, name, created_at)
       select x.id, x.client_id, 'device-1', x.created_at from jsonb_to_recordset($1::jsonb) as x(id uuid, client_id uuid, created_at timestamptz)`,
      [JSON.stringify(devices)],
    );
    await db.query(
      `insert into accounts (id, device_id, interface_id, node_id, ip, private_key, public_key, preshared_key, created_at)
       select x.id, x.device_id, $2, $3, x.ip, x.private_key, x.public_key, x.preshared_key, x.created_at
         from jsonb_to_recordset($1::jsonb) as x(id uuid, device_id uuid, ip text, private_key text, public_key text, preshared_key text, created_at timestamptz)`,
      [JSON.stringify(accounts), iface.id, iface.nodeId],
    );
    await db.query('update interfaces set allocation_cursor = $1 where id = $2', [
      ipToInt(addresses[addresses.length - 1]),
      iface.id,
    ]);
    await db.query('update nodes set desired_revision = desired_revision + 1, updated_at = now() where id = $1', [
      iface.nodeId,
    ]);
    await db.query('commit');
  } catch (error) {
    await db.query('rollback').catch(() => undefined);
    throw error;
  }
}
