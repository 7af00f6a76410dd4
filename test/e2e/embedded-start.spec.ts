/**
 * The embedded default, end to end, as `npm start` runs it: no DATABASE_URL, no REDIS_URL, TLS on
 * with a self-signed certificate. The built panel (dist/) runs as a child process so that start-up,
 * signals, hard kills and the CLI beside a running panel are the real thing.
 */
import { existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../../libs/net/free-port.js';
import { waitFor } from '../support/wait-for.js';
import {
  CLI_MAIN,
  PANEL_MAIN,
  https,
  killAllSpawned,
  postmasterOf,
  run,
  runProgram,
  runToEnd,
  stopPostmaster,
  waitForOutput,
  type Spawned,
} from '../support/spawned-process.js';

// initdb and a first start take several seconds; a cold machine can take much longer.
const SLOW = 180_000;
const LISTENING = 'warren: panel listening on';
const OWNER_LINE = /warren: created the owner account\. username: (\S+) {2}password: (\S+)/;

// Not under the home directory: as root the embedded PostgreSQL runs as the `postgres` user,
// which must be able to enter every directory on the way to the cluster.
const dataDir = mkdtempSync(join('/tmp', 'warren-e2e-'));
const emptyDataDir = mkdtempSync(join('/tmp', 'warren-e2e-empty-'));
let env: NodeJS.ProcessEnv;
let origin: string;
let panel: Spawned | undefined;
let password: string;
let cliToken: string;

function environment(overrides: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^(WARREN_|DATABASE_URL$|REDIS_URL$)/.test(name)) base[name] = value;
  }
  return { ...base, ...overrides };
}

async function startPanel(): Promise<Spawned> {
  const started = run(PANEL_MAIN, [], env);
  panel = started;
  await waitForOutput(started, LISTENING, SLOW);
  return started;
}

async function stopPanel(signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const running = panel!;
  panel = undefined;
  running.child.kill(signal);
  return running.exited;
}

async function login(secret: string) {
  return https('POST', `${origin}/api/auth/login`, { body: { username: 'admin', password: secret } });
}

beforeAll(async () => {
  const port = await freePort();
  origin = `https://127.0.0.1:${port}`;
  env = environment({ WARREN_DATA_DIR: dataDir, WARREN_HOST: '127.0.0.1', WARREN_PORT: String(port) });
});

afterAll(async () => {
  await killAllSpawned();
  await stopPostmaster(dataDir);
  await stopPostmaster(emptyDataDir);
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(emptyDataDir, { recursive: true, force: true });
}, SLOW);

test('a bad configuration value stops start-up with a message naming the variable', async () => {
  const result = await runToEnd(PANEL_MAIN, [], { ...env, WARREN_PORT: 'abc' });
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(/WARREN_PORT/);
  expect(result.stdout).not.toContain(LISTENING);
});

test(
  'the CLI refuses to issue a token before the panel has created an owner',
  async () => {
    const result = await runToEnd(CLI_MAIN, ['token', 'issue', '--name', 'early'], {
      ...env,
      WARREN_DATA_DIR: emptyDataDir,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/no owner account yet/);
    expect(result.stdout).toBe('');
    expect(postmasterOf(emptyDataDir)).toBeUndefined(); // it stopped the server it started
  },
  SLOW,
);

test(
  'first start: real PostgreSQL and the PostgreSQL queue backend, over HTTPS, with a generated owner password printed once',
  async () => {
    const started = await startPanel();
    const health = await https('GET', `${origin}/api/health/ready`);
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({
      status: 'ready',
      database: { ok: true },
      queue: { backend: 'postgres', ok: true },
    });

    const owner = started.stdout.match(OWNER_LINE);
    expect(owner?.[1]).toBe('admin');
    password = owner![2]!;
    expect(started.stdout.split(password)).toHaveLength(2); // printed exactly once
    // ...with how to change it: over the API, or from the host.
    expect(started.stdout).toContain(`change it after signing in: PATCH ${origin}/api/auth/me`);
    expect(started.stdout).toContain('warren admin reset-password');

    const signedIn = await login(password);
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.user).toMatchObject({ username: 'admin', role: 'owner' });
    expect((await https('GET', `${origin}/api/auth/me`, { token: signedIn.body.token })).status).toBe(200);
  },
  SLOW,
);

test(
  'the CLI issues a token while the panel runs, and the panel accepts it',
  async () => {
    const result = await runToEnd(CLI_MAIN, ['token', 'issue', '--name', 'e2e', '--quiet'], env);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/^wrn_[0-9A-Za-z]{46}\n$/);
    cliToken = result.stdout.trim();

    const me = await https('GET', `${origin}/api/auth/me`, { token: cliToken });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ user: { username: 'admin', role: 'owner' }, via: 'token' });
    const listed = await https('GET', `${origin}/api/tokens`, { token: cliToken });
    expect(listed.body.map((token: { name: string }) => token.name)).toContain('e2e');
  },
  SLOW,
);

test(
  'the local node\u2019s agent connects over the panel\u2019s own certificate and applies jobs from the PostgreSQL queue backend',
  async () => {
    const localNode = async () =>
      (await https('GET', `${origin}/api/nodes`, { token: cliToken })).body.find(
        (node: { isLocal: boolean }) => node.isLocal,
      );
    const node = await waitFor(
      'the local agent connected and in sync',
      async () => {
        const current = await localNode();
        return current.agent.state === 'connected' && current.inSync ? current : undefined;
      },
      60_000,
    );
    expect(node).toMatchObject({ inSync: true, agent: { state: 'connected' } });
    // A change to the node (a disabled interface: nothing appears on this host) is a new revision,
    // delivered as a job through the PostgreSQL backend and applied by the local agent.
    const created = await https('POST', `${origin}/api/interfaces`, {
      token: cliToken,
      body: {
        nodeId: node.id,
        name: 'wgdisabled',
        listenPort: 51999,
        subnet: '10.99.0.0/24',
        endpointHost: '127.0.0.1',
        enabled: false,
      },
    });
    expect(created.status).toBe(201);
    const revision = (await localNode()).desiredRevision;
    expect(revision).toBeGreaterThan(node.desiredRevision);
    await waitFor(
      'the local agent to apply the new revision',
      async () => (await localNode()).appliedRevision === revision,
      60_000,
    );
    expect((await localNode()).appliedRevision).toBe(revision);
  },
  SLOW,
);

test(
  'SIGTERM shuts down cleanly; the next start reuses the data directory',
  async () => {
    expect(await stopPanel('SIGTERM')).toEqual({ code: 0, signal: null });
    expect(postmasterOf(dataDir)).toBeUndefined();

    const started = await startPanel();
    expect(started.stdout).not.toMatch(OWNER_LINE);
    expect(started.stdout).not.toContain(password);
    expect((await login(password)).status).toBe(200);
    expect((await https('GET', `${origin}/api/auth/me`, { token: cliToken })).status).toBe(200);
  },
  SLOW,
);

test(
  'after a hard kill (SIGKILL) the next start recovers the cluster and comes up healthy',
  async () => {
    expect(await stopPanel('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });

    const started = await startPanel();
    // The killed panel's PostgreSQL either survived as an orphan or left a stale postmaster.pid.
    expect(started.stdout).toMatch(
      /stopping PostgreSQL left running by an earlier run|removing a stale postmaster\.pid/,
    );
    const health = await https('GET', `${origin}/api/health/ready`);
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ database: { ok: true }, queue: { backend: 'postgres', ok: true } });
    expect((await login(password)).status).toBe(200);
    expect((await https('GET', `${origin}/api/auth/me`, { token: cliToken })).status).toBe(200);
  },
  SLOW,
);

test(
  'with the panel stopped, the CLI starts and stops the embedded PostgreSQL itself',
  async () => {
    expect((await stopPanel('SIGTERM')).code).toBe(0);
    expect(postmasterOf(dataDir)).toBeUndefined();

    const result = await runToEnd(CLI_MAIN, ['token', 'issue', '--name', 'offline'], env);
    expect(result.code).toBe(0);
    const token = result.stdout.match(/Authorization: Bearer (wrn_[0-9A-Za-z]{46})/)?.[1];
    expect(token).toBeDefined();
    expect(result.stdout).toContain(`curl -k -H 'Authorization: Bearer ${token}' '${origin}/api/auth/me'`);
    expect(result.stdout.split(token!).length - 1).toBe(3); // the token line, the header line, the curl line
    expect(postmasterOf(dataDir)).toBeUndefined();

    await startPanel();
    const me = await https('GET', `${origin}/api/auth/me`, { token });
    expect(me.status).toBe(200);
    expect(me.body.via).toBe('token');
    expect((await stopPanel('SIGTERM')).code).toBe(0);
  },
  SLOW,
);

test(
  'Ctrl-C in a terminal (SIGINT to the whole process group) stops the panel before its PostgreSQL, cleanly',
  async () => {
    // A terminal sends SIGINT to every process of its foreground group; the panel runs in a group
    // of its own here, so signalling that group is what Ctrl-C on `npm start` does to it.
    const started = runProgram(process.execPath, [PANEL_MAIN], env, { group: true });
    await waitForOutput(started, LISTENING, SLOW);
    const postmaster = postmasterOf(dataDir);
    expect(postmaster).toBeDefined();
    process.kill(-started.child.pid!, 'SIGINT');
    const closed = new Promise((resolve) => started.child.once('close', resolve)); // all output read
    const exited = await started.exited;
    await closed;
    const output = `${started.stdout}\n${started.stderr}`;
    expect({ ...exited, output }).toEqual({ code: 0, signal: null, output });
    expect(output).not.toMatch(/failed|administrator command|database system is shutting down/);
    expect(output).toContain('warren: SIGINT received, shutting down');
    expect(postmasterOf(dataDir)).toBeUndefined();
  },
  SLOW,
);

test(
  'a data directory that lost postgres.json beside an existing cluster stops start-up saying where the cluster is',
  async () => {
    const settings = join(dataDir, 'postgres.json');
    renameSync(settings, `${settings}.aside`);
    try {
      const result = await runToEnd(PANEL_MAIN, [], env);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(
        /has no postgres\.json, but a PostgreSQL cluster made for it earlier is in \S+\. Put the earlier data directory back, or remove/,
      );
      expect(existsSync(settings)).toBe(false);
    } finally {
      renameSync(`${settings}.aside`, settings);
    }
  },
  SLOW,
);
