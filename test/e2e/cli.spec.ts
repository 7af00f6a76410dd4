import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixtures } from '../support/fixtures.js';
import { CLI_MAIN, runToEnd } from '../support/spawned-process.js';
import {
  createTestDatabase,
  databaseExists,
  execute,
  publicTables,
  type TestDatabase,
} from '../support/test-database.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';

/**
 * `warren` (the built CLI as a process) on a running panel's database and queue store: token
 * list, revoke, status and migrate, their --json forms, exit codes and messages on bad usage and
 * an unreachable database; token issue's scope options. (Token issue itself, and the CLI against
 * the embedded default, are in embedded-start.spec.ts.)
 */

let t: TestPanel;
let token: string;
let env: NodeJS.ProcessEnv;

const f = fixtures(() => ({ t, token }));
const cli = (...args: string[]) => runToEnd(CLI_MAIN, args, env);

beforeAll(async () => {
  t = await startTestPanel();
  token = await t.login();
  env = {
    PATH: process.env.PATH,
    DATABASE_URL: t.database.url,
    REDIS_URL: t.config.redisUrl,
    WARREN_QUEUE_PREFIX: t.config.queuePrefix,
    WARREN_DATA_DIR: t.config.dataDir,
  };
});
afterAll(async () => {
  await t?.stop();
});

test('token list shows every token without its secret, as a table and as JSON', async () => {
  const issued = await f.createToken({ name: 'listed' });
  const listed = await cli('token', 'list');
  expect(listed).toMatchObject({ code: 0 });
  expect(listed.stdout).toMatch(/^ID\s+NAME\s+HINT\s+STATE\s+OWNER/);
  expect(listed.stdout).toContain(issued.id);
  expect(listed.stdout).not.toContain(issued.token);
  const json = await cli('token', 'list', '--json');
  expect(json.code).toBe(0);
  const tokens = JSON.parse(json.stdout) as { id: string; name: string; enabled: boolean }[];
  expect(tokens.find((row) => row.id === issued.id)).toMatchObject({ name: 'listed', enabled: true });
  expect(json.stdout).not.toContain(issued.token);
});

test('token revoke by name or id refuses the token at once; ambiguity and unknown names fail with exit 1', async () => {
  const issued = await f.createToken({ name: 'revoke-me' });
  expect((await t.call('GET', 'auth/me', { token: issued.token })).status).toBe(200);
  const revoked = await cli('token', 'revoke', 'revoke-me');
  expect(revoked).toMatchObject({ code: 0 });
  expect(revoked.stdout).toContain(issued.id);
  expect((await t.call('GET', 'auth/me', { token: issued.token })).status).toBe(401);

  const twin = [await f.createToken({ name: 'twin' }), await f.createToken({ name: 'twin' })];
  const ambiguous = await cli('token', 'revoke', 'twin');
  expect(ambiguous.code).toBe(1);
  expect(ambiguous.stderr).toContain('2 tokens are named "twin"');
  expect((await t.call('GET', 'auth/me', { token: twin[0].token })).status).toBe(200);
  expect((await cli('token', 'revoke', twin[1].id)).code).toBe(0);
  expect((await t.call('GET', 'auth/me', { token: twin[1].token })).status).toBe(401);

  const unknown = await cli('token', 'revoke', 'no-such-token');
  expect(unknown).toMatchObject({ code: 1, stdout: '' });
  expect(unknown.stderr).toContain('no API token with the id or name "no-such-token"');
});

test("token issue takes the API's scope: --read-only, --expires (days or a date), --groups", async () => {
  const tokens = async () =>
    (await t.call('GET', 'tokens', { token })).body as {
      name: string;
      readOnly: boolean;
      expiresAt: string | null;
      routeGroups: string[] | null;
    }[];
  const before = Date.now();
  const scoped = await cli(
    'token',
    'issue',
    '--name',
    'cli-scoped',
    '--quiet',
    '--read-only',
    '--expires',
    '30',
    '--groups',
    'clients,devices',
  );
  expect(scoped.code).toBe(0);
  const scopedToken = scoped.stdout.trim();
  const listed = (await tokens()).find((row) => row.name === 'cli-scoped')!;
  expect(listed).toMatchObject({ readOnly: true, routeGroups: ['clients', 'devices'] });
  const expiresIn = new Date(listed.expiresAt!).getTime() - before;
  expect(expiresIn).toBeGreaterThanOrEqual(30 * 86_400_000);
  expect(expiresIn).toBeLessThan(30 * 86_400_000 + 120_000);
  // What the scope says, the panel does: reads of its groups pass, writes and other groups are 403.
  expect((await t.call('GET', 'clients', { token: scopedToken })).status).toBe(200);
  expect((await t.call('POST', 'clients', { token: scopedToken, body: { name: 'x', interfaceIds: [] } })).status).toBe(
    403,
  );
  expect((await t.call('GET', 'nodes', { token: scopedToken })).status).toBe(403);

  // A date: the token works through that day (UTC); the printed output names the scope.
  const dated = await cli('token', 'issue', '--name', 'cli-dated', '--expires', '2099-01-31');
  expect(dated.code).toBe(0);
  expect(dated.stdout).toContain('read and write, expires 2099-02-01T00:00:00.000Z, every route group');
  expect((await tokens()).find((row) => row.name === 'cli-dated')).toMatchObject({
    readOnly: false,
    expiresAt: '2099-02-01T00:00:00.000Z',
    routeGroups: null,
  });

  // Refusals name the option and issue nothing (exit 2: wrong usage).
  const refusals: [string[], string][] = [
    [['--expires', '2020-01-01'], '--expires must be in the future'],
    [['--expires', '2099-02-30'], '--expires: 2099-02-30 is not a date'],
    [['--expires', 'tomorrow'], '--expires'],
    [['--expires', '0'], '--expires needs at least 1 day'],
    [['--groups', 'clients,nope'], '--groups'],
    [['--groups', 'clients,clients'], '--groups'],
  ];
  for (const [options, message] of refusals) {
    const refused = await cli('token', 'issue', '--name', 'cli-refused', ...options);
    expect({ options, code: refused.code, stdout: refused.stdout }).toEqual({ options, code: 2, stdout: '' });
    expect(refused.stderr).toContain(message);
  }
  expect((await tokens()).filter((row) => row.name === 'cli-refused')).toEqual([]);
}, 180_000);

test('status lists every node with its agent, sync state and queue backlog', async () => {
  const node = await f.createNode({ name: 'status-node' });
  await f.createInterface({ nodeId: node.id });
  const shown = await cli('status');
  expect(shown.code).toBe(0);
  expect(shown.stdout).toMatch(/status-node\s+\S+\s+never-enrolled\s+behind\s+0\/2/);
  // With the panel's own setting (WARREN_LOCAL_AGENT=off, as test panels run) the local node is
  // unmanaged: neither in sync nor behind (issue 19 item 18).
  const off = await runToEnd(CLI_MAIN, ['status'], { ...env, WARREN_LOCAL_AGENT: 'off' });
  expect(off.stdout).toMatch(/\(local\)\s+\S+\s+unmanaged\s+unmanaged\s/);
  expect(off.stdout).toMatch(/, \d+ behind, 1 unmanaged\./);
  const json = await cli('status', '--json');
  const report = JSON.parse(json.stdout) as {
    nodes: { id: string; agent: string; inSync: boolean; backlog: number | null }[];
    queueStore: { ok: boolean };
  };
  expect(report.queueStore).toEqual({ ok: true });
  // Delivery put the node's apply job on its queue; no agent takes it.
  expect(report.nodes.find((entry) => entry.id === node.id)).toMatchObject({
    agent: 'never-enrolled',
    inSync: false,
    backlog: 1,
  });
});

test('migrate reports the migration level and changes nothing on an up-to-date database', async () => {
  const before = await t.query('select name from warren_migrations order by id');
  const migrated = await cli('migrate');
  expect(migrated.code).toBe(0);
  expect(migrated.stdout).toMatch(/^The database is at migration \S+ \(\d+ applied, none pending\)\.\n$/);
  expect(await t.query('select name from warren_migrations order by id')).toEqual(before);
});

test('backup create, list and restore: progress on stderr, the archive where the panel keeps them, the database back as it was', async () => {
  const kept = await f.createClient({ interfaceIds: [(await f.createInterface()).id] });
  const made = await cli('backup', 'create', '--json');
  expect(made.code).toBe(0);
  expect(made.stderr).toMatch(/backup: database \d+%/);
  const backup = JSON.parse(made.stdout) as { name: string; size: number; sha256: string };
  expect(backup.name).toMatch(/^backup-\d{8}-\d{6}\.tar\.gz$/);
  // The panel lists what the command made: one backup directory.
  expect((await t.call('GET', 'backups', { token })).body.backups.map((b: { name: string }) => b.name)).toContain(
    backup.name,
  );
  const listed = await cli('backup', 'list', '--json');
  expect(JSON.parse(listed.stdout).map((b: { name: string }) => b.name)).toContain(backup.name);

  expect((await t.call('DELETE', `clients/${kept.id}`, { token })).status).toBe(200);
  const restored = await cli('backup', 'restore', backup.name);
  expect(restored.code).toBe(0);
  expect(restored.stderr).toMatch(/restore: restoring \d+%/);
  expect(restored.stdout).toContain(`restored ${backup.name}`);
  expect(restored.stdout).toContain('get the restored state from the running panel');
  token = await t.login();
  expect((await t.call('GET', `clients/${kept.id}`, { token })).status).toBe(200);
});

test('--json is the JSON alone on stdout, however much the command logs (retention, a restore): logs go to stderr', async () => {
  expect((await t.call('PATCH', 'settings', { token, body: { backupKeep: 1 } })).status).toBe(200);
  const made: { name: string }[] = [];
  for (let i = 0; i < 2; i++) {
    const create = await cli('backup', 'create', '--json');
    expect(create.code).toBe(0);
    made.push(JSON.parse(create.stdout) as { name: string });
  }
  // Retention ran (whatever it may prune) and said so, on stderr.
  const listed = JSON.parse((await cli('backup', 'list', '--json')).stdout) as { name: string }[];
  expect(listed.map((backup) => backup.name)).toContain(made[1].name);
  const restore = await cli('backup', 'restore', made[1].name, '--json');
  expect(restore.code).toBe(0);
  expect(JSON.parse(restore.stdout)).toMatchObject({ name: made[1].name, panelRunning: true });
  expect(restore.stderr).toContain(`restored ${made[1].name}`);
  for (const args of [
    ['status', '--json'],
    ['token', 'list', '--json'],
  ]) {
    const listing = await cli(...args);
    expect([args, listing.code]).toEqual([args, 0]);
    expect(() => JSON.parse(listing.stdout) as unknown).not.toThrow();
  }
  token = await t.login();
  expect((await t.call('PATCH', 'settings', { token, body: { backupKeep: 7 } })).status).toBe(200);
});

describe('read-only commands never create a schema', () => {
  let foreign: TestDatabase;
  beforeAll(async () => {
    foreign = await createTestDatabase();
  });
  afterAll(async () => {
    await foreign?.drop();
  });

  test("on an empty or another application's database, status and token list exit 1 saying so, and create nothing", async () => {
    const onForeign = { ...env, DATABASE_URL: foreign.url };
    for (const setup of ['empty', 'foreign']) {
      if (setup === 'foreign') await execute(foreign.url, 'create table orders (id int primary key)');
      const before = await publicTables(foreign.url);
      for (const args of [['status'], ['status', '--json'], ['token', 'list'], ['token', 'list', '--json']]) {
        const result = await runToEnd(CLI_MAIN, args, onForeign);
        expect([setup, args, result.code, result.stdout]).toEqual([setup, args, 1, '']);
        expect(result.stderr).toContain(`no panel database in DATABASE_URL (database "${foreign.name}"`);
        expect(result.stderr).not.toContain(new URL(foreign.url).password || '\0');
      }
      expect(await publicTables(foreign.url)).toEqual(before);
    }
    // A database the server does not have is not created either.
    const missing = new URL(foreign.url);
    missing.pathname = `/${foreign.name}_missing`;
    const none = await runToEnd(CLI_MAIN, ['status'], { ...env, DATABASE_URL: missing.toString() });
    expect([none.code, none.stdout]).toEqual([1, '']);
    expect(none.stderr).toContain(`no panel database in DATABASE_URL (database "${foreign.name}_missing"`);
    expect(await databaseExists(`${foreign.name}_missing`)).toBe(false);
    // backup list reads the backup directory alone: it lists what there is to restore, database or not.
    const listed = await runToEnd(CLI_MAIN, ['backup', 'list', '--json'], onForeign);
    expect(listed.code).toBe(0);
    expect(await publicTables(foreign.url)).toEqual(['orders']);
  });

  test('a restore into a database no panel runs on says so, not "the running panel"', async () => {
    const made = JSON.parse((await cli('backup', 'create', '--json')).stdout) as { name: string };
    const fresh = await createTestDatabase();
    try {
      const onFresh = { ...env, DATABASE_URL: fresh.url };
      const restored = await runToEnd(CLI_MAIN, ['backup', 'restore', made.name], onFresh);
      expect(restored.code).toBe(0);
      expect(restored.stdout).toMatch(
        /no panel is running on this database: \d+ node\(s\) get the restored state when it starts/,
      );
      expect(restored.stdout).not.toContain('running panel');
      const json = await runToEnd(CLI_MAIN, ['backup', 'restore', made.name, '--json'], onFresh);
      expect(JSON.parse(json.stdout)).toMatchObject({ name: made.name, panelRunning: false });
      // Now a panel database: the read-only commands read it.
      expect((await runToEnd(CLI_MAIN, ['token', 'list', '--json'], onFresh)).code).toBe(0);
    } finally {
      await fresh.drop();
    }
  });
});

test('backup restore refuses a name that is not a backup, an unknown one and a damaged archive, with exit 1 and nothing changed', async () => {
  const clients = await f.count('clients');
  for (const [name, message] of [
    ['../etc/passwd', 'is not a backup name'],
    ['backup-20000101-000000.tar.gz', 'no backup named'],
  ]) {
    const refused = await cli('backup', 'restore', name);
    expect([name, refused.code]).toEqual([name, 1]);
    expect(refused.stderr).toContain(message);
  }
  writeFileSync(join(t.config.backupDir, 'backup-20000102-000000.tar.gz'), 'not an archive');
  const damaged = await cli('backup', 'restore', 'backup-20000102-000000.tar.gz');
  expect(damaged.code).toBe(1);
  expect(damaged.stderr).toContain('was not restored: not a backup archive');
  expect(damaged.stderr).not.toMatch(/\n\s+at /);
  expect(await f.count('clients')).toBe(clients);
});

test.each([
  [['token', 'frobnicate'], 'unknown command "token frobnicate"'],
  [[], 'no command given'],
  [['status', '--name', 'x'], 'status does not take --name'],
  [['token', 'revoke'], 'token revoke takes 1 argument, got 0'],
  [['token', 'list', '--colour'], "Unknown option '--colour'"],
])('bad usage %j: exit 2 with a hint', async (args, message) => {
  const result = await cli(...args);
  expect(result).toMatchObject({ code: 2, stdout: '' });
  expect(result.stderr).toContain(message);
  expect(result.stderr).toContain('warren --help');
});

test('an unreachable database: exit 1 with a message, no stack trace', async () => {
  const result = await runToEnd(CLI_MAIN, ['token', 'list'], {
    ...env,
    DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none',
  });
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(/^warren: /);
  expect(result.stderr).not.toMatch(/\n\s+at /);
});
