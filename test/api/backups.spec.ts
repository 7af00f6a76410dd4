import { createHash, randomUUID } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { dirname, join } from 'node:path';
import { createGzip, gzipSync } from 'node:zlib';
import * as tar from 'tar';
import pg from 'pg';
import { BackupsRepository } from '../../apps/controller/src/backups/backups.repository.js';
import { backupNameAt } from '../../apps/controller/src/backups/backup-store.js';
import { BackupScheduler } from '../../apps/controller/src/backups/backup.scheduler.js';
import { BACKUPS_QUEUE } from '../../apps/controller/src/backups/backup-jobs.js';
import type { QueueBackend } from '../../apps/controller/src/queue/queue-backend.js';
import { QUEUE_BACKEND } from '../../apps/controller/src/runtime.js';
import { waitFor } from '../support/wait-for.js';
import { UsageService } from '../../apps/controller/src/clients/usage.service.js';
import { answer, fixtures } from '../support/fixtures.js';
import { generateKeyPair } from '#libs/wireguard/keys.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';

const run = promisify(execFile);
/**
 * Backups and restore through the API against real PostgreSQL. No agents run here (the panels
 * start without their local agent): every node's host state is recorded as unreachable; the
 * agent side of a backup is tested in test/e2e (backup-agents.spec.ts).
 */

let a: TestPanel;
let ownerA: string;
const A = fixtures(() => ({ t: a, token: ownerA }));

beforeAll(async () => {
  a = await startTestPanel();
  ownerA = await a.login();
});
afterAll(async () => {
  await a?.stop();
});

async function makeBackup(t: TestPanel, token: string) {
  const made = await t.call('POST', 'backups', { token });
  expect(made.status).toBe(201);
  return made.body as { name: string; size: number; createdAt: string; sha256: string };
}

async function download(t: TestPanel, token: string, name: string): Promise<Buffer> {
  const response = await fetch(`${t.api}/backups/${name}`, { headers: { authorization: `Bearer ${token}` } });
  expect([response.status, response.headers.get('content-type')]).toEqual([200, 'application/gzip']);
  return Buffer.from(await response.arrayBuffer());
}

async function upload(t: TestPanel, token: string, archive: Buffer, type = 'application/gzip') {
  const response = await fetch(`${t.api}/backups/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': type },
    body: new Uint8Array(archive),
  });
  return { status: response.status, body: (await response.json()) as any };
}

/** Every resource a backup must bring back, as the API shows it. */
async function everything(t: TestPanel, token: string) {
  const get = async (path: string) => {
    const got = await t.call('GET', path, { token });
    expect([path, got.status]).toEqual([path, 200]);
    return got.body;
  };
  const clients = (await get('clients?perPage=100')).items as { id: string }[];
  const withoutTimes = (nodes: any[]) =>
    nodes.map(({ desiredRevision, appliedRevision, inSync, updatedAt, agent, ...rest }) => rest);
  return {
    nodes: withoutTimes(await get('nodes')),
    interfaces: await get('interfaces'),
    hosts: await get('hosts'),
    clients: await Promise.all(clients.map((client) => get(`clients/${client.id}`))),
    configs: await Promise.all(clients.map((client) => get(`clients/${client.id}/configs`))),
    tokens: await get('tokens'),
    settings: await get('settings'),
    // The overview's counters are derived: a restore must count them again from the loaded rows.
    inventory: (await get('overview/full')).inventory,
  };
}

describe('a backup round trip', () => {
  test('populate, back up, restore into a fresh panel: every resource reads the same; the panel the backup came from is untouched', async () => {
    await answer(A.typed().PATCH('/api/settings', { body: { backupKeep: 5, probeTimeoutMs: 7000 } }));
    const { node, iface } = await A.createNodeWithInterface();
    const local = await A.createInterface();
    await A.createHost({ interfaceId: local.id, name: 'edge', address: 'vpn.example.com', port: 443 });
    const c1 = await A.createClient({
      interfaceIds: [iface.id, local.id],
      deviceLimit: 2,
      deviceNames: ['phone', 'laptop'],
      quotaBytes: 10_000_000,
    } as any);
    await A.createClient({ interfaceIds: [local.id], note: 'with a note' } as any);
    const keys = (await A.accountsOf(c1.id))
      .filter((row) => row.interface_id === iface.id)
      .map((row) => row.public_key as string);
    const usage = a.panel.app.get(UsageService);
    await usage.recordCounters(node.id, 1, [
      {
        interface: iface.name,
        publicKey: keys[0],
        rxBytes: 1234,
        txBytes: 56789,
        lastHandshake: Date.now() - 1000,
        endpoint: '198.51.100.7:40000',
      },
    ]);
    await A.createToken({ name: 'automation' });
    await A.createUser('viewer');
    // The subscription page's settings and the key links derive from are settings rows of their own.
    const page = { title: 'Acme VPN', supportContact: '@acme', formats: ['conf', 'zip'], language: 'fa' };
    expect((await a.call('PUT', 'subscription', { token: ownerA, body: page })).status).toBe(200);
    const link = (await a.call('GET', `clients/${c1.id}/subscription`, { token: ownerA })).body as { path: string };

    const before = await everything(a, ownerA);
    expect(before.clients.find((c: any) => c.id === c1.id)).toMatchObject({ upBytes: 1234, downBytes: 56789 });
    const backup = await makeBackup(a, ownerA);
    expect(backup.name).toMatch(/^backup-\d{8}-\d{6}\.tar\.gz$/);
    const archive = await download(a, ownerA, backup.name);
    expect(archive.length).toBe(backup.size);
    expect(createHash('sha256').update(archive).digest('hex')).toBe(backup.sha256);

    const b = await startTestPanel();
    try {
      let ownerB = await b.login();
      const uploaded = await upload(b, ownerB, archive);
      if (uploaded.status !== 201) console.log(uploaded.body);
      expect([uploaded.status, uploaded.body]).toEqual([201, backup]);
      const restored = await b.call('POST', `backups/${backup.name}/restore`, { token: ownerB });
      expect([restored.status, restored.body]).toEqual([
        200,
        { name: backup.name, createdAt: backup.createdAt, nodes: 2, tables: expect.any(Number) },
      ]);
      // The owner of panel B was not in the backup: their session is gone with them.
      expect((await b.call('GET', 'auth/me', { token: ownerB })).status).toBe(401);
      ownerB = await b.login(); // the backup's owner, same name and password in these tests
      const after = await everything(b, ownerB);
      // Tokens are the backup's (their secrets hashed as they were): same names, hints, owners.
      expect(after).toEqual(before);
      // The page's settings came back, and a customer's link still opens the same page.
      expect((await b.call('GET', 'subscription', { token: ownerB })).body).toEqual(page);
      expect((await b.call('GET', `clients/${c1.id}/subscription`, { token: ownerB })).body).toMatchObject({
        path: link.path,
      });
      // Revisions are above the backup's: agents that applied a newer one before do not skip it.
      const nodesB = (await b.call('GET', 'nodes', { token: ownerB })).body as any[];
      const nodesA = (await a.call('GET', 'nodes', { token: ownerA })).body as any[];
      for (const n of nodesB)
        expect(n.desiredRevision).toBeGreaterThan(nodesA.find((x) => x.id === n.id).desiredRevision);
    } finally {
      await b.stop();
    }
    expect(await everything(a, ownerA)).toEqual(before);
  });

  test('a backup made at an older migration level restores into this panel, its data carried through the newer migrations', async () => {
    // What a panel from before Migration20261126180300_sharing wrote: the same format without the
    // tables and columns that migration and every later one add, at the level before it (made here
    // from a current backup, its manifest and parts edited). A new migration adds what it makes
    // here: the test fails until it does, as a backup of the level before it would lack them.
    const madeAfterLevel: Record<string, { tables?: string[]; columns?: Record<string, string[]> }> = {
      Migration20261126180300_sharing: { tables: ['device_endpoints'] },
      Migration20261126210000_notifications: {
        tables: ['notification_events', 'webhook_endpoints', 'webhook_deliveries'],
      },
      Migration20261126210100_telegram: { tables: ['telegram_users'] },
      Migration20261126210200_client_writes: {},
      Migration20261126210400_password_changed: { columns: { users: ['password_changed_at'] } },
      Migration20261126210500_tunnels: { columns: { interfaces: ['restart_serial'], nodes: ['tunnels_stopped'] } },
      Migration20261127010000_host_groups: {
        tables: ['host_groups'],
        columns: { hosts: ['group_id', 'tags', 'position'] },
      },
      Migration20261127010100_outbound_subs: {
        tables: ['outbound_subscriptions'],
        columns: { outbounds: ['subscription_id', 'subscription_key', 'subscription_gone'] },
      },
      Migration20261127010200_hop_counters: { columns: { outbounds: ['up_bytes', 'down_bytes', 'traffic_since'] } },
      Migration20261127040000_balancers: { tables: ['balancers'], columns: { routing_rules: ['balancer_id'] } },
      Migration20261127090100_million_clients: {},
      Migration20261127140000_client_scale: { columns: { clients: ['next_reset_at'] } },
      Migration20261127140100_audit_codes: { columns: { audit_entries: ['error_code'] } },
      Migration20261127140200_counter_batches: {},
      Migration20261127150000_peer_journal: {},
      Migration20261127170000_warren_function_names: {},
      Migration20261127170100_remaining_step: {},
    };
    const migrations = a.panel.app.get(BackupsRepository).migrations;
    const level = migrations.findIndex((migration) => migration.name === 'Migration20261126180300_sharing') - 1;
    expect(migrations.slice(level + 1).map((migration) => migration.name)).toEqual(Object.keys(madeAfterLevel));
    const client = await A.createClient({ interfaceIds: [(await A.createInterface()).id] });
    const current = readTar(await download(a, ownerA, (await makeBackup(a, ownerA)).name));
    atOlderLevel(current, migrations[level].name, Object.values(madeAfterLevel), '2026-01-02T03:04:05.000Z');
    await answer(A.typed().PATCH('/api/settings', { body: { backupKeep: 3 } }));
    await a.query('delete from clients where id = $1', [client.id]);

    const uploaded = await upload(a, ownerA, writeTarGz(current));
    expect([uploaded.status, uploaded.body.name]).toEqual([201, 'backup-20260102-030405.tar.gz']);
    const restored = await a.call('POST', `backups/${uploaded.body.name}/restore`, { token: ownerA });
    expect(restored.status).toBe(200);
    ownerA = await a.login();
    expect((await a.call('GET', `clients/${client.id}`, { token: ownerA })).status).toBe(200);
    // The restored client keeps its owner (the owner, who created it).
    expect(
      await a.query(`select u.role from clients c join users u on u.id = c.owner_id where c.id = $1`, [client.id]),
    ).toEqual([{ role: 'owner' }]);
    // The newest migration ran over the restored data (its columns took their defaults), and the
    // counters counted the loaded clients.
    expect((await a.query(`select name from warren_migrations order by id desc limit 1`))[0]).toEqual({
      name: migrations.at(-1)!.name,
    });
    const clients = (await a.call('GET', 'overview/full', { token: ownerA })).body.inventory.clients;
    expect(clients.total).toBe(await A.count('clients'));
    // The audit log is kept: the client's creation is still recorded.
    expect(
      await a.query(`select outcome from audit_entries where action = 'clients.create' and target_id = $1`, [
        client.id,
      ]),
    ).toEqual([{ outcome: 'success' }]);
    // Settings are the backup's (5, set by the round trip above), not the 3 set after it.
    expect((await a.call('GET', 'settings', { token: ownerA })).body.backupKeep).toBe(5);
    await answer(A.typed().PATCH('/api/settings', { body: { backupKeep: 7 } }));
  });
});

type TablePart = { name: string; columns: string[]; file: string };

/**
 * The files of a current archive edited into what a panel at migration `level` wrote: without
 * the tables and columns the later migrations `made` (their checksums recomputed), dated `at`.
 */
function atOlderLevel(
  files: Map<string, Buffer>,
  level: string,
  made: { tables?: string[]; columns?: Record<string, string[]> }[],
  at: string,
): void {
  const newerTables = new Set(made.flatMap((one) => one.tables ?? []));
  const newerColumns = new Map<string, string[]>();
  for (const one of made)
    for (const [table, columns] of Object.entries(one.columns ?? {}))
      newerColumns.set(table, [...(newerColumns.get(table) ?? []), ...columns]);
  const manifest = JSON.parse(files.get('manifest.json')!.toString());
  const newer = (manifest.tables as TablePart[]).filter((table) => newerTables.has(table.name));
  expect(newer.map((table) => table.name).sort()).toEqual([...newerTables].sort());
  for (const table of newer) {
    files.delete(table.file);
    delete manifest.files[table.file];
  }
  manifest.tables = (manifest.tables as TablePart[]).filter((table) => !newerTables.has(table.name));
  // A part is COPY text: one line per row, its fields split by tabs (a tab inside a value is written \t).
  for (const table of manifest.tables as TablePart[]) {
    const dropped = (newerColumns.get(table.name) ?? []).map((column) => table.columns.indexOf(column));
    if (dropped.length === 0) continue;
    expect(dropped).not.toContain(-1);
    const lines = files.get(table.file)!.toString().split('\n');
    const kept = (fields: string[]) => fields.filter((_, index) => !dropped.includes(index));
    const part = Buffer.from(lines.map((line) => (line === '' ? line : kept(line.split('\t')).join('\t'))).join('\n'));
    files.set(table.file, part);
    manifest.files[table.file] = createHash('sha256').update(part).digest('hex');
    table.columns = kept(table.columns);
  }
  manifest.migration = level;
  manifest.createdAt = at;
  files.set('manifest.json', Buffer.from(JSON.stringify(manifest)));
}

/** The files of a .tar.gz, by path (read with the same tar library the panel uses). */
/** An archive copied into the backup directory by hand (no upload checks it), by the name its manifest's time gives. */
function placeInStore(archive: Buffer): string {
  const name = backupNameAt(new Date(JSON.parse(readTar(archive).get('manifest.json')!.toString()).createdAt));
  writeFileSync(join(a.config.backupDir, name), archive);
  return name;
}

function readTar(archive: Buffer): Map<string, Buffer> {
  const dir = mkdtempSync(join(tmpdir(), 'warren-tar-'));
  try {
    writeFileSync(join(dir, 'in.tar.gz'), archive);
    mkdirSync(join(dir, 'x'));
    tar.extract({ file: join(dir, 'in.tar.gz'), cwd: join(dir, 'x'), sync: true });
    const files = new Map<string, Buffer>();
    for (const entry of readdirSync(join(dir, 'x'), { recursive: true }) as string[]) {
      if (statSync(join(dir, 'x', entry)).isFile()) files.set(entry, readFileSync(join(dir, 'x', entry)));
    }
    return files;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A .tar.gz of these files (the inverse of readTar). */
function writeTarGz(files: Map<string, Buffer>): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'warren-tar-'));
  try {
    for (const [path, data] of files) {
      mkdirSync(dirname(join(dir, 'x', path)), { recursive: true });
      writeFileSync(join(dir, 'x', path), data);
    }
    tar.create({ gzip: true, sync: true, file: join(dir, 'out.tar.gz'), cwd: join(dir, 'x'), noDirRecurse: true }, [
      ...files.keys(),
    ]);
    return readFileSync(join(dir, 'out.tar.gz'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('bad archives and names', () => {
  let good: Buffer;
  let goodName: string;
  beforeAll(async () => {
    ownerA = await a.login();
    goodName = (await makeBackup(a, ownerA)).name;
    good = await download(a, ownerA, goodName);
  });

  test('names with .., slashes, NUL or another shape are 400 on name; a well-formed unknown name is 404', async () => {
    for (const name of [
      '..%2F..%2Fetc%2Fpasswd',
      'backup-20261125-101500.tar.gz%00',
      '%2Fetc%2Fpasswd',
      'backup-20261399-101500.tar.gz',
      'x.tar.gz',
    ]) {
      for (const [method, path] of [
        ['GET', `backups/${name}`],
        ['DELETE', `backups/${name}`],
        ['POST', `backups/${name}/restore`],
      ] as const) {
        const refused = await a.call(method, path, { token: ownerA });
        expect([name, method, refused.status, refused.body.field]).toEqual([name, method, 400, 'name']);
      }
    }
    const unknown = await a.call('GET', 'backups/backup-20000101-000000.tar.gz', { token: ownerA });
    expect([unknown.status, unknown.body.field]).toEqual([404, 'name']);
  });

  test('uploads that are not archives, damaged, truncated, foreign, of an unknown format version or over the limit are refused and nothing is kept', async () => {
    const listed = async () =>
      ((await a.call('GET', 'backups', { token: ownerA })).body.backups as { name: string }[])
        .map((b) => b.name)
        .sort();
    const before = await listed();
    const files = readTar(good);
    const repack = (change: (files: Map<string, Buffer>) => void) => {
      const copy = new Map(files);
      change(copy);
      return writeTarGz(copy);
    };
    const manifest = JSON.parse(files.get('manifest.json')!.toString());
    const cases: [string, Buffer, number][] = [
      ['not gzip', Buffer.from('hello, this is not an archive'), 400],
      ['gzip of not a tar', gzipSync(Buffer.from('x'.repeat(2000))), 400],
      ['truncated', good.subarray(0, Math.floor(good.length / 2)), 400],
      [
        'a flipped byte in a part',
        repack((f) => {
          const [path, data] = [...f].find(([p]) => p.startsWith('database/') && f.get(p)!.length > 0)!;
          const flipped = Buffer.from(data);
          flipped[0] ^= 1;
          f.set(path, flipped);
        }),
        400,
      ],
      [
        'an unknown format version',
        repack((f) => f.set('manifest.json', Buffer.from(JSON.stringify({ ...manifest, formatVersion: 99 })))),
        400,
      ],
      [
        'a foreign format',
        repack((f) => f.set('manifest.json', Buffer.from(JSON.stringify({ ...manifest, format: 'other-panel' })))),
        400,
      ],
      [
        'a newer panel’s migration',
        repack((f) =>
          f.set(
            'manifest.json',
            Buffer.from(JSON.stringify({ ...manifest, migration: 'Migration29991231000000_future' })),
          ),
        ),
        409,
      ],
      ['a part the manifest does not list', repack((f) => f.set('database/extra.copy', Buffer.from('1\n'))), 400],
      ['no manifest', repack((f) => f.delete('manifest.json')), 400],
    ];
    for (const [what, body, status] of cases) {
      const refused = await upload(a, ownerA, body);
      expect([what, refused.status, refused.body.field]).toEqual([what, status, 'archive']);
    }
    const json = await a.call('POST', 'backups/upload', { token: ownerA, body: { archive: 'x' } });
    expect([json.status, json.body.field]).toEqual([415, 'archive']);
    expect(await listed()).toEqual(before);
    const leftovers = readdirSync(a.config.backupDir).filter((name) => name.startsWith('.'));
    expect(leftovers).toEqual([]);
  });

  test('one upload at a time per controller: another while one is received or checked is 409 and kept nothing; then uploads go on', async () => {
    const listed = async () =>
      ((await a.call('GET', 'backups', { token: ownerA })).body.backups as { name: string }[]).map((b) => b.name);
    // The first upload's body arrives in two pieces, the second when this test sends it.
    let send!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({ start: (controller) => void (send = controller) });
    const first = fetch(`${a.api}/backups/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ownerA}`, 'content-type': 'application/gzip' },
      body,
      duplex: 'half',
    } as RequestInit);
    send.enqueue(new Uint8Array(good.subarray(0, 1024)));
    await waitFor('the first upload being received', async () =>
      readdirSync(a.config.backupDir).some((name) => name.startsWith('.upload-')) ? true : undefined,
    );
    const kept = await listed();
    const second = await upload(a, ownerA, good);
    expect([second.status, second.body.error, second.body.field]).toEqual([
      409,
      'another upload is being received or checked; send this one again when it is done',
      'archive',
    ]);
    expect(await listed()).toEqual(kept);
    send.enqueue(new Uint8Array(good.subarray(1024)));
    send.close();
    const answered = await first;
    expect([answered.status, ((await answered.json()) as { name: string }).name]).toEqual([201, goodName]);
    // Done: the next upload is checked again (the same archive is the same backup).
    expect((await upload(a, ownerA, good)).status).toBe(201);
  });

  test('an archive that unpacks past the limit is refused without inflating the rest, and nothing is left behind', async () => {
    // A tar header claiming a 1 GiB part, then 1 GiB of zeros: ~1 MiB gzip-compressed, far past
    // the 256 MiB floor of the unpack limit. Skipping the entry used to inflate it to its end.
    const header = new tar.Header({ path: 'database/clients.copy', size: 1024 ** 3, type: 'File', mode: 0o600 });
    const block = Buffer.alloc(512);
    header.encode(block);
    const gzip = createGzip({ level: 1 });
    const chunks: Buffer[] = [];
    gzip.on('data', (chunk: Buffer) => chunks.push(chunk));
    const done = new Promise((resolve) => gzip.on('end', resolve));
    gzip.write(block);
    const zeros = Buffer.alloc(1024 * 1024);
    for (let i = 0; i < 1024; i++) if (!gzip.write(zeros)) await new Promise((resolve) => gzip.once('drain', resolve));
    gzip.end();
    await done;
    const before = readdirSync(a.config.backupDir).sort();
    const refused = await upload(a, ownerA, Buffer.concat(chunks));
    expect([refused.status, refused.body.field]).toEqual([400, 'archive']);
    expect(refused.body.error).toMatch(/^the archive unpacks to more than \d+ bytes$/);
    expect(readdirSync(a.config.backupDir).sort()).toEqual(before);
  });

  test('a manifest field out of shape is refused with a sentence naming it, not the validation library’s output', async () => {
    const files = readTar(good);
    const manifest = JSON.parse(files.get('manifest.json')!.toString());
    for (const [field, value] of [
      ['createdAt', 'yesterday'],
      ['createdAt', '2026-13-45T99:00:00Z'],
      ['migration', 'drop table users'],
    ] as const) {
      files.set('manifest.json', Buffer.from(JSON.stringify({ ...manifest, [field]: value })));
      const refused = await upload(a, ownerA, writeTarGz(files));
      expect([field, refused.status, refused.body.field]).toEqual([field, 400, 'archive']);
      expect(refused.body.error).toMatch(new RegExp(`^the archive's manifest has an invalid ${field}: it must be `));
      // zod's JSON issues quoted the pattern ("pattern": "^(?:...") and its own codes.
      expect(refused.body.error).not.toMatch(/pattern|\[{|invalid_format|\^\(/);
    }
  });

  test('back-to-back backups get distinct names, none ahead of the time it was answered', async () => {
    const made: { name: string; answeredAt: number }[] = [];
    for (let i = 0; i < 3; i++) {
      const { name } = await makeBackup(a, ownerA);
      made.push({ name, answeredAt: Date.now() });
    }
    expect(new Set(made.map((m) => m.name)).size).toBe(3);
    for (const { name, answeredAt } of made) {
      const [, y, mo, d, h, mi, sec] = /^backup-(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})/.exec(name)!.map(Number);
      const namedAt = Date.UTC(y, mo - 1, d, h, mi, sec);
      expect([name, namedAt <= answeredAt]).toEqual([name, true]);
    }
  });

  test('an upload over the size limit is cut off with 413 and nothing kept', async () => {
    const small = await startTestPanel({ WARREN_BACKUP_MAX_UPLOAD_MB: '1' });
    try {
      const owner = await small.login();
      const refused = await upload(small, owner, Buffer.concat([good, Buffer.alloc(1024 * 1024 + 1)]));
      expect([refused.status, refused.body.field]).toEqual([413, 'archive']);
      expect(existsSync(small.config.backupDir) ? readdirSync(small.config.backupDir) : []).toEqual([]);
    } finally {
      await small.stop();
    }
  });

  test('a restore of a damaged archive in the store is refused and changes nothing', async () => {
    const damaged = 'backup-20000102-030405.tar.gz';
    writeFileSync(join(a.config.backupDir, damaged), good.subarray(0, good.length - 100));
    const clientsBefore = await A.count('clients');
    const refused = await a.call('POST', `backups/${damaged}/restore`, { token: ownerA });
    expect([refused.status, refused.body.field]).toEqual([400, 'name']);
    expect(await A.count('clients')).toBe(clientsBefore);
    expect((await a.call('GET', 'auth/me', { token: ownerA })).status).toBe(200);
    expect((await a.call('DELETE', `backups/${damaged}`, { token: ownerA })).status).toBe(200);
  });

  test('while one backup or restore waits or runs, another is 409 and nothing changes; the running one shows its state and is followed to its end', async () => {
    const queue = a.panel.app.get<QueueBackend>(QUEUE_BACKEND).queue(BACKUPS_QUEUE);
    await queue.pause(); // the restore below waits in the queue: "running" for every other request
    let restore: Promise<Awaited<ReturnType<TestPanel['call']>>> | undefined;
    try {
      restore = a.call('POST', `backups/${goodName}/restore`, { token: ownerA });
      const running = await waitFor(
        'the restore queued',
        async () => (await a.call('GET', 'backups', { token: ownerA })).body.running ?? undefined,
      );
      expect(running).toMatchObject({ kind: 'restore', state: 'waiting', name: goodName, trigger: 'api' });
      const clientsBefore = await A.count('clients');
      for (const [method, path] of [
        ['POST', 'backups'],
        ['POST', `backups/${goodName}/restore`],
        ['DELETE', `backups/${goodName}`],
      ] as const) {
        const refused = await a.call(method, path, { token: ownerA });
        expect([method, path, refused.status]).toEqual([method, path, 409]);
      }
      expect(await A.count('clients')).toBe(clientsBefore);
      const followed = await a.call('GET', `backups/jobs/${running.id}`, { token: ownerA });
      expect([followed.status, followed.body.state]).toEqual([200, 'waiting']);
    } finally {
      await queue.resume();
    }
    expect((await restore!).status).toBe(200);
    ownerA = await a.login();
  });

  test('a backup or restore another controller holds (the database lock) is 409', async () => {
    const holder = new pg.Client({ connectionString: a.database.url });
    await holder.connect();
    try {
      await holder.query(`select pg_advisory_lock(hashtext('warren.backups'))`);
      const refused = await a.call('POST', 'backups', { token: ownerA });
      expect([refused.status, refused.body.error]).toEqual([409, 'another backup or restore is running']);
    } finally {
      await holder.end();
    }
    expect((await a.call('POST', 'backups', { token: ownerA })).status).toBe(201);
  });

  test('scheduled backups: off at interval 0, not due within the interval of the newest backup, started once it has passed', async () => {
    const scheduler = a.panel.app.get(BackupScheduler);
    const newest = new Date(
      ((await a.call('GET', 'backups', { token: ownerA })).body.backups[0] as { createdAt: string }).createdAt,
    );
    await answer(A.typed().PATCH('/api/settings', { body: { backupIntervalHours: 0 } }));
    expect(await scheduler.runIfDue(new Date(newest.getTime() + 1000 * 3_600_000))).toBe('off');
    await answer(A.typed().PATCH('/api/settings', { body: { backupIntervalHours: 6 } }));
    expect(await scheduler.runIfDue(new Date(newest.getTime() + 5 * 3_600_000))).toBe('not due');
    const before = ((await a.call('GET', 'backups', { token: ownerA })).body.backups as { name: string }[]).map(
      (b) => b.name,
    );
    expect(await scheduler.runIfDue(new Date(newest.getTime() + 6 * 3_600_000))).toBe('started');
    await waitFor('the scheduled backup made', async () => {
      const listed = (await a.call('GET', 'backups', { token: ownerA })).body;
      return listed.running === null && listed.backups.some((b: { name: string }) => !before.includes(b.name))
        ? true
        : undefined;
    });
    await answer(A.typed().PATCH('/api/settings', { body: { backupIntervalHours: 24 } }));
  });

  test("retention prunes only scheduled archives, after scheduled backups: seven admin backups in a row leave the owner's archives", async () => {
    await answer(A.typed().PATCH('/api/settings', { body: { backupKeep: 2 } }));
    const listed = async () =>
      ((await a.call('GET', 'backups', { token: ownerA })).body.backups as { name: string }[]).map((b) => b.name);
    const owners = [(await makeBackup(a, ownerA)).name, (await makeBackup(a, ownerA)).name];
    // Two old archives the schedule made (marked so), and one uploaded or made by hand (unmarked).
    const oldScheduled = ['backup-20000101-000001.tar.gz', 'backup-20000101-000002.tar.gz'];
    for (const old of [...oldScheduled, 'backup-20000101-000003.tar.gz'])
      writeFileSync(join(a.config.backupDir, old), good);
    for (const old of oldScheduled) writeFileSync(join(a.config.backupDir, `${old}.scheduled`), '');

    const admin = await A.createUser('admin');
    for (let i = 0; i < 7; i++) await makeBackup(a, admin.token);
    const afterAdmin = await listed();
    const marked = new Set(afterAdmin.filter((name) => existsSync(join(a.config.backupDir, `${name}.scheduled`))));
    expect(afterAdmin).toEqual(expect.arrayContaining([...owners, ...oldScheduled, 'backup-20000101-000003.tar.gz']));

    // A scheduled backup prunes the scheduled archives beyond backupKeep, and nothing else.
    const scheduler = a.panel.app.get(BackupScheduler);
    await answer(A.typed().PATCH('/api/settings', { body: { backupIntervalHours: 1 } }));
    expect(await scheduler.runIfDue(new Date(Date.now() + 2 * 3_600_000))).toBe('started');
    const made = await waitFor('the scheduled backup made, retention done', async () => {
      const body = (await a.call('GET', 'backups', { token: ownerA })).body;
      const names = (body.backups as { name: string }[]).map((b) => b.name);
      const fresh = names.filter((name) => !afterAdmin.includes(name));
      return body.running === null && fresh.length === 1 ? { names, fresh: fresh[0] } : undefined;
    });
    expect(made.names).toEqual(expect.arrayContaining([...owners, 'backup-20000101-000003.tar.gz', made.fresh]));
    // Of the scheduled archives (marked before, and the fresh one) the newest two are kept, the rest pruned.
    const scheduledBefore = afterAdmin.filter((name) => marked.has(name));
    const kept = [made.fresh, ...scheduledBefore].sort().reverse().slice(0, 2);
    const pruned = scheduledBefore.filter((name) => !kept.includes(name));
    expect(pruned).toContain(oldScheduled[0]);
    expect(made.names.filter((name) => marked.has(name) || name === made.fresh).sort()).toEqual(kept.sort());
    for (const name of pruned) expect(existsSync(join(a.config.backupDir, `${name}.scheduled`))).toBe(false);
    expect(made.names.sort()).toEqual([...afterAdmin.filter((name) => !pruned.includes(name)), made.fresh].sort());
    await answer(A.typed().PATCH('/api/settings', { body: { backupKeep: 7, backupIntervalHours: 24 } }));
  });

  test('archives that pass their checksums but name what a backup may not hold are refused at upload and at restore, and nothing changes', async () => {
    const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');
    /** A well-formed archive (checksums recomputed) with a table added to its manifest, dated `at`. */
    const crafted = (at: string, table: { name: string; columns: string[] }, rows: string) => {
      const files = readTar(good);
      const manifest = JSON.parse(files.get('manifest.json')!.toString());
      const file = `database/${table.name}.copy`;
      files.set(file, Buffer.from(rows));
      manifest.tables = [
        ...manifest.tables.filter((t: { name: string }) => t.name !== table.name),
        { ...table, rows: 1, file },
      ];
      manifest.files[file] = sha(files.get(file)!);
      manifest.createdAt = at;
      files.set('manifest.json', Buffer.from(JSON.stringify(manifest)));
      return writeTarGz(files);
    };
    const roles = async () => (await a.query<{ n: string }>(`select count(*)::text as n from pg_roles`))[0].n;
    const before = { clients: await A.count('clients'), sessions: await A.count('sessions'), roles: await roles() };
    const cases: [string, Buffer, RegExp][] = [
      // PostgreSQL's catalogue, found first on the search path by an unqualified name.
      [
        'a system table',
        crafted(
          '2001-01-01T00:00:01.000Z',
          { name: 'pg_authid', columns: ['oid', 'rolname', 'rolsuper'] },
          '987654\tevil\tt\n',
        ),
        /does not back up: pg_authid/,
      ],
      [
        'a table backups leave out',
        crafted('2001-01-01T00:00:02.000Z', { name: 'sessions', columns: ['id', 'token_hash'] }, 'x\ty\n'),
        /does not back up: sessions/,
      ],
      [
        'a column the table lacks',
        crafted('2001-01-01T00:00:03.000Z', { name: 'users', columns: ['id', 'nonexistent_col'] }, 'x\ty\n'),
        /users names a column it does not have: nonexistent_col/,
      ],
    ];
    for (const [what, archive, message] of cases) {
      // An upload is checked as a restore checks it: refused, and nothing kept.
      const uploaded = await upload(a, ownerA, archive);
      expect([what, uploaded.status, uploaded.body.field]).toEqual([what, 400, 'archive']);
      expect(uploaded.body.error).toMatch(message);
      // One copied into the directory by hand is refused at restore.
      const name = placeInStore(archive);
      const refused = await a.call('POST', `backups/${name}/restore`, { token: ownerA });
      expect([what, refused.status, refused.body.field]).toEqual([what, 400, 'name']);
      expect(refused.body.error).toMatch(message);
    }
    // Values that do not load (not a uuid) are a 400 that does not quote them.
    const files = readTar(good);
    const manifest = JSON.parse(files.get('manifest.json')!.toString());
    const usersPart = manifest.tables.find((t: { name: string }) => t.name === 'users');
    files.set(usersPart.file, Buffer.from(`not-a-uuid-SECRET\t${'x\t'.repeat(usersPart.columns.length - 2)}x\n`));
    manifest.files[usersPart.file] = sha(files.get(usersPart.file)!);
    manifest.createdAt = '2001-01-01T00:00:04.000Z';
    files.set('manifest.json', Buffer.from(JSON.stringify(manifest)));
    const bad = await upload(a, ownerA, writeTarGz(files));
    expect([bad.status, bad.body.field]).toEqual([400, 'archive']);
    expect(bad.body.error).not.toContain('SECRET');
    const refused = await a.call('POST', `backups/${placeInStore(writeTarGz(files))}/restore`, { token: ownerA });
    expect([refused.status, refused.body.error]).toEqual([
      400,
      "the archive's table users does not load into this panel: a value is not of its column's type (PostgreSQL error 22P02)",
    ]);
    expect(refused.body.error).not.toContain('SECRET');
    expect({ clients: await A.count('clients'), sessions: await A.count('sessions'), roles: await roles() }).toEqual(
      before,
    );
    expect((await a.call('GET', 'auth/me', { token: ownerA })).status).toBe(200);
  });

  test('an archive whose rows a migration it predates refuses is 400 at upload and at restore, naming the migration, and nothing is kept', async () => {
    // A panel at Migration20261127090100_million_clients took group names of any length in
    // clients.groups; Migration20261127140000_client_scale counts each group in a varchar(80)
    // counter ("group:" + name), which a name of 100 characters does not fit: the replayed
    // migration fails on the archive's data (it answered 500).
    const client = await A.createClient({ interfaceIds: [(await A.createInterface()).id] });
    const files = readTar(await download(a, ownerA, (await makeBackup(a, ownerA)).name));
    const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');
    atOlderLevel(
      files,
      'Migration20261127090100_million_clients',
      [{ columns: { clients: ['next_reset_at'], audit_entries: ['error_code'] } }],
      '2001-03-01T00:00:00.000Z',
    );
    const manifest = JSON.parse(files.get('manifest.json')!.toString());
    const part = (manifest.tables as TablePart[]).find((table) => table.name === 'clients')!;
    const lines = files.get(part.file)!.toString().split('\n');
    const row = lines.findIndex((line) => line.split('\t')[part.columns.indexOf('id')] === client.id);
    const cells = lines[row].split('\t');
    cells[part.columns.indexOf('groups')] = `{${'g'.repeat(100)}}`;
    lines[row] = cells.join('\t');
    files.set(part.file, Buffer.from(lines.join('\n')));
    manifest.files[part.file] = sha(files.get(part.file)!);
    files.set('manifest.json', Buffer.from(JSON.stringify(manifest)));
    const archive = writeTarGz(files);

    const listed = async () =>
      ((await a.call('GET', 'backups', { token: ownerA })).body.backups as { name: string }[]).map((b) => b.name);
    const kept = await listed();
    const said =
      "the archive's data does not pass the migration Migration20261127140000_client_scale, which brings it to this panel's schema: a value is longer than its column allows (PostgreSQL error 22001)";
    const uploaded = await upload(a, ownerA, archive);
    expect([uploaded.status, uploaded.body.error, uploaded.body.field]).toEqual([400, said, 'archive']);
    expect(await listed()).toEqual(kept);
    expect(readdirSync(a.config.backupDir).filter((name) => name.startsWith('.'))).toEqual([]);
    // Nothing of the check outlives it: its schema went with its transaction.
    expect(await a.query(`select nspname from pg_namespace where nspname like 'warren\\_check\\_%'`)).toEqual([]);
    // A restore of it (copied into the directory by hand) is refused with the same sentence.
    const clientsBefore = await A.count('clients');
    const name = placeInStore(archive);
    const refused = await a.call('POST', `backups/${name}/restore`, { token: ownerA });
    expect([refused.status, refused.body.error, refused.body.field]).toEqual([400, said, 'name']);
    expect(await A.count('clients')).toBe(clientsBefore);
    expect((await a.call('GET', 'auth/me', { token: ownerA })).status).toBe(200);
    expect((await a.call('DELETE', `backups/${name}`, { token: ownerA })).status).toBe(200);
  });

  test('rows the API would refuse are refused at upload and at restore, naming the row and field, and nothing changes: AmneziaWG headers, hosts, hops, domains, names', async () => {
    await answer(A.typed().PATCH('/api/settings', { body: { allowPrivateTargets: true } }));
    const iface = await A.createInterface({ mode: 'amnezia' });
    const host = await A.createHost({ interfaceId: iface.id, name: 'crafted', address: 'vpn.example.com', port: 443 });
    const hop = (
      await a.call('POST', 'outbounds', {
        token: ownerA,
        body: { tag: 'crafted-hop', kind: 'socks', address: '127.0.0.1:1080', username: 'user' },
      })
    ).body as { id: string };
    const wgHop = (
      await a.call('POST', 'outbounds', {
        token: ownerA,
        body: {
          tag: 'crafted-wg',
          kind: 'wireguard',
          address: '127.0.0.1:51820',
          peerPublicKey: generateKeyPair().publicKey,
          tunnelAddress: '10.66.0.2/32',
        },
      })
    ).body as { id: string };
    const ruleMade = await a.call('POST', 'routing/rules', {
      token: ownerA,
      body: { name: 'crafted-rule', domains: ['example.com'], outboundTag: 'crafted-hop' },
    });
    expect(ruleMade.status).toBe(201);
    const balancer = await a.call('POST', 'balancers', {
      token: ownerA,
      body: { tag: 'crafted-balancer', strategy: 'failover', hops: [hop.id] },
    });
    expect(balancer.status).toBe(201);
    const bal = (balancer.body as { id: string }).id;
    const client = await A.createClient({ interfaceIds: [iface.id] });
    const archive = await download(a, ownerA, (await makeBackup(a, ownerA)).name);
    const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');
    /** COPY text: a backslash escapes; `\\N` is null. Only what these edits need. */
    const unescape = (text: string) =>
      text.replace(/\\(.)/g, (_m, c: string) => ({ n: '\n', t: '\t', '\\': '\\' })[c] ?? c);
    const escape = (text: string) => text.replaceAll('\\', '\\\\').replaceAll('\n', '\\n').replaceAll('\t', '\\t');
    /** The archive with one column of the row `id` of `table` changed by `edit`, dated `at`. */
    const crafted = (at: string, table: string, id: string, column: string, edit: (value: string) => string) => {
      const files = readTar(archive);
      const manifest = JSON.parse(files.get('manifest.json')!.toString());
      const part = manifest.tables.find((t: { name: string }) => t.name === table);
      const index = part.columns.indexOf(column);
      const lines = files.get(part.file)!.toString().split('\n');
      const row = lines.findIndex((line) => line.split('\t')[part.columns.indexOf('id')] === id);
      expect([table, row >= 0]).toEqual([table, true]);
      const cells = lines[row].split('\t');
      cells[index] = escape(edit(unescape(cells[index])));
      lines[row] = cells.join('\t');
      files.set(part.file, Buffer.from(lines.join('\n')));
      manifest.files[part.file] = sha(files.get(part.file)!);
      manifest.createdAt = at;
      files.set('manifest.json', Buffer.from(JSON.stringify(manifest)));
      return writeTarGz(files);
    };
    const injected = 'PostUp = curl http://127.0.0.1:9/x | sh';
    const rule = (await a.query<{ id: string }>(`select id from routing_rules where name = 'crafted-rule'`))[0].id;
    const owner = (await a.query<{ id: string }>(`select id from users where role = 'owner'`))[0].id;
    const cases: [string, string, string, (value: string) => string, string][] = [
      [
        'interfaces',
        iface.id,
        'awg',
        (v) => JSON.stringify({ ...JSON.parse(v), h4: `341630256\n${injected}` }),
        'awg.h4',
      ],
      ['interfaces', iface.id, 'endpoint_host', () => `vpn.example.com\n${injected}`, 'endpointHost'],
      ['interfaces', iface.id, 'dns', () => `{"1.1.1.1\n${injected}"}`, 'dns'],
      ['hosts', host.id, 'address', () => `edge.example.com\n${injected}`, 'address'],
      ['outbounds', hop.id, 'username', () => 'user\n\tip = 10.0.0.1;', 'username'],
      // No route takes a hop's interface name (the service makes it): held to what the service makes.
      ['outbounds', wgHop.id, 'interface_name', () => 'w\nPostUp=id', 'interfaceName'],
      ['outbounds', hop.id, 'interface_name', () => 'whop1', 'interfaceName'],
      ['routing_rules', rule, 'domains', () => '{"example.com/#ip#evil"}', 'domains'],
      ['clients', client.id, 'name', () => 'line\nbreak', 'name'],
      // What the balancers service checks across rows (the API answers 400 or 409 for each).
      ['balancers', bal, 'hops', () => `{${randomUUID()}}`, 'hops'],
      ['balancers', bal, 'hops', () => `{${hop.id},${hop.id}}`, 'hops'],
      ['balancers', bal, 'override_id', () => wgHop.id, 'overrideId'],
      ['balancers', bal, 'tag', () => 'crafted-hop', 'tag'],
      // What the auth module writes: scrypt threw a RangeError (a 500 at sign-in) on N = 3, and
      // p = 100000 would run for minutes; a TOTP secret otplib did not make.
      ['users', owner, 'password_hash', (v) => v.replace(/^scrypt\$\d+\$8\$1\$/, 'scrypt$3$8$1$'), 'password_hash'],
      [
        'users',
        owner,
        'password_hash',
        (v) => v.replace(/^scrypt\$\d+\$8\$1\$/, 'scrypt$16384$8$100000$'),
        'password_hash',
      ],
      ['users', owner, 'password_hash', () => 'plain-text', 'password_hash'],
      ['users', owner, 'totp_secret', () => 'not a secret', 'totp_secret'],
      ['users', owner, 'totp_last_step', () => '-5', 'totp_last_step'],
    ];
    const configs = async () => (await a.call('GET', `clients/${client.id}/configs`, { token: ownerA })).body;
    const before = { configs: await configs(), clients: await A.count('clients'), hops: await A.count('outbounds') };
    const listed = async () =>
      ((await a.call('GET', 'backups', { token: ownerA })).body.backups as { name: string }[]).map((b) => b.name);
    for (const [i, [table, id, column, edit, field]] of cases.entries()) {
      const kept = await listed();
      const archive = crafted(`2001-02-01T00:00:${String(i).padStart(2, '0')}.000Z`, table, id, column, edit);
      // Refused at upload with the restore's own words (an upload once kept it: 201), nothing kept.
      const uploaded = await upload(a, ownerA, archive);
      expect([table, column, uploaded.status, uploaded.body.field]).toEqual([table, column, 400, 'archive']);
      expect(uploaded.body.error).toContain(`row ${table} ${id} is refused: ${field}`);
      expect(uploaded.body.error).not.toContain('PostUp');
      expect(await listed()).toEqual(kept);
      // And at restore, for one copied into the directory by hand.
      const refused = await a.call('POST', `backups/${placeInStore(archive)}/restore`, { token: ownerA });
      expect([table, column, refused.status, refused.body.field]).toEqual([table, column, 400, 'name']);
      expect(refused.body.error).toContain(`row ${table} ${id} is refused: ${field}`);
      expect(refused.body.error).not.toContain('PostUp');
    }
    expect({ configs: await configs(), clients: await A.count('clients'), hops: await A.count('outbounds') }).toEqual(
      before,
    );
    // The archive as made restores: every check passes on what the API wrote.
    const restored = await a.call(
      'POST',
      `backups/${
        (
          await upload(
            a,
            ownerA,
            crafted('2001-02-02T00:00:00.000Z', 'hosts', host.id, 'address', (v) => v),
          )
        ).body.name
      }/restore`,
      { token: ownerA },
    );
    expect(restored.status).toBe(200);
    expect(await configs()).toEqual(before.configs);
    // Each upload is loaded and checked as a restore is (a schema of its own): twice the work of old.
  }, 240_000);

  test('an archive dated in the future is refused; a symbolic link under a backup name is no backup; job numbers only', async () => {
    const files = readTar(good);
    const manifest = JSON.parse(files.get('manifest.json')!.toString());
    files.set('manifest.json', Buffer.from(JSON.stringify({ ...manifest, createdAt: '2099-12-31T23:59:59.000Z' })));
    const future = await upload(a, ownerA, writeTarGz(files));
    expect([future.status, future.body.field]).toEqual([400, 'archive']);

    const victim = join(a.config.dataDir, 'not-a-backup.txt');
    writeFileSync(victim, 'private');
    symlinkSync(victim, join(a.config.backupDir, 'backup-20000101-010101.tar.gz'));
    expect((await a.call('GET', 'backups/backup-20000101-010101.tar.gz', { token: ownerA })).status).toBe(404);
    const listed = ((await a.call('GET', 'backups', { token: ownerA })).body.backups as { name: string }[]).map(
      (b) => b.name,
    );
    expect(listed).not.toContain('backup-20000101-010101.tar.gz');
    rmSync(join(a.config.backupDir, 'backup-20000101-010101.tar.gz'));

    for (const job of ['meta', 'events', '1e3'])
      expect((await a.call('GET', `backups/jobs/${job}`, { token: ownerA })).status).toBe(404);
  });

  test('the curl commands GET /api/docs gives for download and upload work as printed', async () => {
    const docs = (await a.call('GET', 'docs', { token: ownerA })).body as {
      groups: { endpoints: { method: string; path: string; curl: string }[] }[];
    };
    const curlOf = (method: string, path: string) =>
      docs.groups.flatMap((g) => g.endpoints).find((e) => e.method === method && e.path.endsWith(path))!.curl;
    const name = (await makeBackup(a, ownerA)).name; // its own: retention above may have taken older ones
    const archive = await download(a, ownerA, name);
    const dir = mkdtempSync(join(tmpdir(), 'warren-curl-'));
    try {
      const env = { ...process.env, WARREN_TOKEN: ownerA };
      // Asynchronously: the panel answering curl runs in this process.
      await run('bash', ['-c', curlOf('GET', '/backups/{name}').replace('{name}', name) + ' -sSf'], { cwd: dir, env });
      expect(readFileSync(join(dir, name))).toEqual(archive);
      rmSync(join(a.config.backupDir, name));
      const { stdout: out } = await run(
        'bash',
        ['-c', curlOf('POST', '/backups/upload').replace('@FILE', `@${name}`) + ' -sS'],
        { cwd: dir, env },
      );
      expect(JSON.parse(out)).toMatchObject({ name: name });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('only the owner reads, uploads, deletes or restores archives; an admin makes and lists them', async () => {
    const admin = await A.createUser('admin');
    expect((await a.call('GET', 'backups', { token: admin.token })).status).toBe(200);
    expect((await a.call('GET', `backups/${goodName}`, { token: admin.token })).status).toBe(403);
    expect((await a.call('POST', `backups/${goodName}/restore`, { token: admin.token })).status).toBe(403);
    expect((await a.call('DELETE', `backups/${goodName}`, { token: admin.token })).status).toBe(403);
    expect((await upload(a, admin.token, good)).status).toBe(403);
    // Retention deletes backups, so it is the owner's too (as are the schedule and private targets).
    for (const body of [{ backupKeep: 1 }, { backupIntervalHours: 1 }, { allowPrivateTargets: true }]) {
      const refused = await a.call('PATCH', 'settings', { token: admin.token, body });
      expect([body, refused.status, refused.body.field]).toEqual([body, 403, Object.keys(body)[0]]);
    }
    expect((await a.call('PATCH', 'settings', { token: admin.token, body: { probeTimeoutMs: 6000 } })).status).toBe(
      200,
    );
  });
});

describe('a restore under write load', () => {
  test('restores answer 200, concurrent creates wait (201) or are 503 with Retry-After, nothing else is 5xx, and the data agrees with itself after', async () => {
    const iface = await A.createInterface();
    const backup = await makeBackup(a, ownerA);
    const answers: { what: string; status: number; retryAfter: string | null; error?: string }[] = [];
    let restoring = true;
    // Bounded loops on loopback: each writer stops when the restores are done, or after 300 creates.
    const writer = async () => {
      for (let i = 0; restoring && i < 300; i++) {
        const made = await a.call('POST', 'clients', { token: ownerA, body: { interfaceIds: [iface.id] } });
        answers.push({
          what: 'create',
          status: made.status,
          retryAfter: made.headers.get('retry-after'),
          error: made.body?.error,
        });
      }
    };
    const restorer = async () => {
      try {
        for (let i = 0; i < 8; i++) {
          const done = await a.call('POST', `backups/${backup.name}/restore`, { token: ownerA });
          answers.push({
            what: 'restore',
            status: done.status,
            retryAfter: done.headers.get('retry-after'),
            error: done.body?.error,
          });
        }
      } finally {
        restoring = false;
      }
    };
    await Promise.all([writer(), writer(), writer(), restorer()]);
    const busy = (x: (typeof answers)[number]) => x.status === 503 && x.retryAfter !== null;
    expect(answers.filter((x) => x.what === 'create' && x.status !== 201 && !busy(x))).toEqual([]);
    expect(answers.filter((x) => x.what === 'restore' && x.status !== 200 && !busy(x))).toEqual([]);
    expect(answers.filter((x) => x.what === 'restore' && x.status === 200).length).toBeGreaterThan(0);
    expect(answers.filter((x) => x.what === 'create').length).toBeGreaterThan(8);

    // What the restores left agrees with itself: counters, summaries and every client's devices.
    const [counts] = await a.query<{ clients: number; summaries: number; devicesWithoutTheirAccounts: number }>(
      `select (select count(*)::int from clients) as clients,
              (select count(*)::int from clients c where c.device_count <> (select count(*) from devices d where d.client_id = c.id)) as summaries,
              (select count(*)::int from devices d where (select count(*) from accounts x where x.device_id = d.id)
                 <> (select count(*) from client_interfaces ci where ci.client_id = d.client_id)) as "devicesWithoutTheirAccounts"`,
    );
    expect(counts.summaries).toBe(0);
    expect(counts.devicesWithoutTheirAccounts).toBe(0);
    const inventory = (await a.call('GET', 'overview/full', { token: ownerA })).body.inventory;
    expect(inventory.clients.total).toBe(counts.clients);
    const listed = (await a.call('GET', 'clients?perPage=1', { token: ownerA })).body;
    expect(listed.total).toBe(counts.clients);
  });
});
