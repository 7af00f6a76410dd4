// Files as other panels write them, for the import's tests and its bench (plain JS: bench/ loads
// it without TypeScript). wg-easy v14's wg0.json and client config follow its lib/WireGuard.js;
// v15's database follows its src/server/database (drizzle migrations); W-UI's export is the shape
// docs/import.md defines.
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';

const fromJwk = (value) => Buffer.from(value, 'base64url').toString('base64');

/** An X25519 key pair as `wg genkey | wg pubkey` print them. */
export function keyPair() {
  const jwk = generateKeyPairSync('x25519').privateKey.export({ format: 'jwk' });
  return { privateKey: fromJwk(jwk.d), publicKey: fromJwk(jwk.x) };
}

export const presharedKey = () => randomBytes(32).toString('base64');

/** The n-th host address (from .2) of a /16 whose first two octets are `prefix16`, e.g. "10.8". */
export function addressOf(prefix16, n) {
  const host = n + 2;
  return `${prefix16}.${host >> 8}.${host & 255}`;
}

/**
 * wg-easy v14's wg0.json with `count` clients (named `<namePrefix>1`... , default client-1...) at
 * addresses from the `first`-th host address (default 0: `<prefix16>.0.2`) up; `over(client, i)`
 * may change each.
 */
export function wgEasyFile(
  count,
  prefix16 = '10.8',
  { server = keyPair(), over, namePrefix = 'client-', first = 0 } = {},
) {
  const clients = {};
  const now = new Date().toISOString();
  for (let i = 0; i < count; i++) {
    const id = randomUUID();
    const keys = keyPair();
    const client = {
      id,
      name: `${namePrefix}${i + 1}`,
      address: addressOf(prefix16, first + i),
      privateKey: keys.privateKey,
      publicKey: keys.publicKey,
      preSharedKey: presharedKey(),
      createdAt: now,
      updatedAt: now,
      enabled: true,
    };
    over?.(client, i);
    clients[id] = client;
  }
  return {
    server: { privateKey: server.privateKey, publicKey: server.publicKey, address: `${prefix16}.0.1` },
    clients,
  };
}

/** A client's config as wg-easy v14 renders it (getClientConfiguration), for its default settings. */
export function wgEasyClientConfig(
  client,
  { serverPublicKey, host, port, dns = '1.1.1.1', mtu, allowedIps = '0.0.0.0/0, ::/0' },
) {
  return `[Interface]
PrivateKey = ${client.privateKey}
Address = ${client.address}/24
${dns ? `DNS = ${dns}\n` : ''}${mtu ? `MTU = ${mtu}\n` : ''}
[Peer]
PublicKey = ${serverPublicKey}
${client.preSharedKey ? `PresharedKey = ${client.preSharedKey}\n` : ''}AllowedIPs = ${allowedIps}
PersistentKeepalive = 0
Endpoint = ${host}:${port}`;
}

/**
 * wg-easy v15's database at `path` (its tables as its migrations leave them, the columns an import
 * reads), with the clients of a v14-shaped `file` (as wgEasyFile makes it). Needs Node 24 (node:sqlite).
 */
export async function writeWgEasyDatabase(path, file) {
  // getBuiltinModule: Jest's module loader does not know node:sqlite.
  const { DatabaseSync } = process.getBuiltinModule('node:sqlite');
  const db = new DatabaseSync(path);
  db.exec(`CREATE TABLE interfaces_table (name text PRIMARY KEY NOT NULL, device text NOT NULL, port integer NOT NULL,
      private_key text NOT NULL, public_key text NOT NULL, ipv4_cidr text NOT NULL, ipv6_cidr text NOT NULL, mtu integer NOT NULL,
      enabled integer NOT NULL, created_at text DEFAULT (CURRENT_TIMESTAMP) NOT NULL, updated_at text DEFAULT (CURRENT_TIMESTAMP) NOT NULL);
    CREATE TABLE clients_table (id integer PRIMARY KEY AUTOINCREMENT NOT NULL, user_id integer NOT NULL, interface_id text NOT NULL,
      name text NOT NULL, ipv4_address text NOT NULL, ipv6_address text NOT NULL, pre_up text DEFAULT '' NOT NULL,
      post_up text DEFAULT '' NOT NULL, pre_down text DEFAULT '' NOT NULL, post_down text DEFAULT '' NOT NULL,
      private_key text NOT NULL, public_key text NOT NULL, pre_shared_key text, expires_at text, allowed_ips text,
      server_allowed_ips text NOT NULL, persistent_keepalive integer NOT NULL, mtu integer NOT NULL, dns text,
      enabled integer NOT NULL, created_at text DEFAULT (CURRENT_TIMESTAMP) NOT NULL, updated_at text DEFAULT (CURRENT_TIMESTAMP) NOT NULL);
    CREATE UNIQUE INDEX clients_table_ipv4_address_unique ON clients_table (ipv4_address);`);
  db.prepare(
    `insert into interfaces_table (name, device, port, private_key, public_key, ipv4_cidr, ipv6_cidr, mtu, enabled)
     values ('wg0', 'eth0', 51820, ?, ?, ?, 'fdcc:ad94:bacf:61a4::cafe:0/112', 1420, 1)`,
  ).run(file.server.privateKey, file.server.publicKey, `${file.server.address.replace(/\.1$/, '.0')}/24`);
  const insert = db.prepare(
    `insert into clients_table (user_id, interface_id, name, ipv4_address, ipv6_address, private_key, public_key, pre_shared_key,
       expires_at, server_allowed_ips, persistent_keepalive, mtu, enabled) values (1, 'wg0', ?, ?, ?, ?, ?, ?, ?, '[]', 0, 1420, ?)`,
  );
  let n = 0;
  for (const client of Object.values(file.clients)) {
    n++;
    insert.run(
      client.name,
      client.address,
      `fdcc:ad94:bacf:61a4::cafe:${n + 1}`,
      client.privateKey,
      client.publicKey,
      client.preSharedKey ?? null,
      client.expiredAt ?? null,
      client.enabled ? 1 : 0,
    );
  }
  db.close();
}
