import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileDate, isRecord, rowError, text, UnreadableFile, type ImportFile, type ImportRow } from './import-rows.js';

/**
 * wg-easy v14's `wg0.json`: `{server: {privateKey, publicKey, address}, clients: {<id>: {name,
 * address, privateKey, publicKey, preSharedKey, enabled, expiredAt?}}}`. One device per client.
 */
export function readWgEasyJson(file: Record<string, unknown>): ImportFile {
  const server = isRecord(file.server) ? file.server : {};
  if (!isRecord(file.clients)) throw new UnreadableFile('a wg-easy wg0.json has a "clients" object');
  const rows = Object.values(file.clients).map((client, index) => {
    const row = index + 1;
    const at = `rows[${row}]`;
    if (!isRecord(client)) {
      return { row, name: '', enabled: false, devices: [], errors: [rowError(at, `row ${row} is not a client`)] };
    }
    const expiresAt = fileDate(client.expiredAt ?? client.expiresAt);
    const imported: ImportRow = {
      row,
      name: text(client.name)?.trim() ?? '',
      enabled: client.enabled !== false,
      expiresAt: expiresAt ?? null,
      devices: [
        {
          name: 'device-1',
          ip: text(client.address),
          privateKey: text(client.privateKey),
          publicKey: text(client.publicKey),
          presharedKey: text(client.preSharedKey) || undefined,
          at,
          names: { ip: 'address', presharedKey: 'preSharedKey' },
        },
      ],
      errors: expiresAt === undefined ? [rowError(`${at}.expiredAt`, 'expiredAt is not a date')] : [],
    };
    return imported;
  });
  return { format: 'wg-easy-json', rows, serverPublicKey: text(server.publicKey) };
}

interface SqliteDatabase {
  prepare(sql: string): { all(): unknown[] };
  close(): void;
}

/**
 * wg-easy v15's SQLite database (src/server/database in its repository): `clients_table` (name,
 * ipv4_address, private_key, public_key, pre_shared_key, expires_at, enabled) and
 * `interfaces_table` (the server's keys). Read with Node's built-in node:sqlite from a private
 * temporary copy, read-only.
 */
export function readWgEasySqlite(bytes: Buffer): ImportFile {
  // getBuiltinModule, not import(): a module loader that does not know node:sqlite (Jest's) cannot refuse it.
  const { DatabaseSync } = process.getBuiltinModule('node:sqlite') as unknown as {
    DatabaseSync: new (path: string, options: { readOnly: boolean }) => SqliteDatabase;
  };
  const dir = mkdtempSync(join(tmpdir(), 'warren-import-'));
  const path = join(dir, 'wg-easy.db');
  writeFileSync(path, bytes, { mode: 0o600 });
  let db: SqliteDatabase | undefined;
  try {
    db = new DatabaseSync(path, { readOnly: true });
    const tables = new Set(
      (db.prepare(`select name from sqlite_master where type = 'table'`).all() as { name: string }[]).map(
        (t) => t.name,
      ),
    );
    if (!tables.has('clients_table')) throw new UnreadableFile('a wg-easy v15 database has a clients_table');
    const clients = db.prepare('select * from clients_table order by id').all() as Record<string, unknown>[];
    const server = tables.has('interfaces_table')
      ? (db.prepare(`select public_key from interfaces_table order by name = 'wg0' desc limit 1`).all()[0] as
          Record<string, unknown> | undefined)
      : undefined;
    const rows = clients.map((client, index): ImportRow => {
      const row = index + 1;
      const at = `rows[${row}]`;
      const expiresAt = fileDate(client.expires_at);
      return {
        row,
        name: text(client.name)?.trim() ?? '',
        enabled: client.enabled !== 0 && client.enabled !== false,
        expiresAt: expiresAt ?? null,
        devices: [
          {
            name: 'device-1',
            ip: text(client.ipv4_address),
            privateKey: text(client.private_key),
            publicKey: text(client.public_key),
            presharedKey: text(client.pre_shared_key) || undefined,
            at,
            names: {
              ip: 'ipv4_address',
              privateKey: 'private_key',
              publicKey: 'public_key',
              presharedKey: 'pre_shared_key',
            },
          },
        ],
        errors: expiresAt === undefined ? [rowError(`${at}.expires_at`, 'expires_at is not a date')] : [],
      };
    });
    return { format: 'wg-easy-sqlite', rows, serverPublicKey: text(server?.public_key) };
  } catch (error) {
    if (error instanceof UnreadableFile) throw error;
    throw new UnreadableFile('the file is not a wg-easy v15 database SQLite can read');
  } finally {
    db?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
