import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REDIS_URL } from '../support/environment.js';
import { dropRedisPrefix, testQueuePrefix } from '../support/leftovers.js';
import { freePort } from '../../libs/net/free-port.js';
import { ROOT, runProgram } from '../support/spawned-process.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';

/**
 * deploy/install.sh into a temporary root (WARREN_INSTALL_ROOT): no apt (the tools are here), no
 * build (this checkout is built: `npm run build` first), no systemd (units written, not started;
 * the installer starts the panel itself for its first-install steps). On the machine's PostgreSQL
 * and Redis. What it prints and writes, and that a second run is an upgrade that issues nothing.
 */
describe('deploy/install.sh', () => {
  let root: string;
  let database: TestDatabase;
  let port: number;
  const script = join(ROOT, 'deploy', 'install.sh');
  const queuePrefix = testQueuePrefix('i');
  const env = (): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    WARREN_INSTALL_ROOT: root,
    WARREN_INSTALL_PREFIX: ROOT.replace(/\/$/, ''),
    WARREN_INSTALL_SKIP_APT: '1',
    WARREN_INSTALL_SKIP_BUILD: '1',
    WARREN_INSTALL_SKIP_SYSTEMD: '1',
    // First-install settings, written to warren.env.
    WARREN_PORT: String(port),
    WARREN_HOST: '127.0.0.1',
    DATABASE_URL: database.url,
    REDIS_URL,
    WARREN_QUEUE_PREFIX: queuePrefix,
  });
  const install = async () => {
    const run = runProgram('bash', [script], env());
    const { code } = await run.exited;
    if (code !== 0) throw new Error(`install.sh exited ${code}\n${run.stdout}\n${run.stderr}`);
    return run.stdout;
  };
  const tokensNamedInstaller = async () => {
    const { Client } = (await import('pg')).default;
    const client = new Client({ connectionString: database.url });
    await client.connect();
    try {
      return (await client.query("SELECT count(*)::int AS n FROM api_tokens WHERE name = 'installer'")).rows[0]
        .n as number;
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'warren-install-'));
    database = await createTestDatabase();
    port = await freePort();
  });
  afterAll(async () => {
    await dropRedisPrefix(REDIS_URL, queuePrefix);
    await database?.drop();
    rmSync(root, { recursive: true, force: true });
  });

  let firstSummary = '';
  test('the first run writes settings, units and a 0600 summary with the URL, username, password and a new API token', async () => {
    const output = await install();
    const envFile = join(root, 'etc/warren/warren.env');
    const settings = readFileSync(envFile, 'utf8');
    const basePath = settings.match(/^WARREN_BASE_PATH=(\/[a-z0-9]{12})$/m)?.[1];
    const password = settings.match(/^WARREN_ADMIN_PASSWORD=([A-Za-z0-9]{20})$/m)?.[1];
    expect(basePath).toBeDefined();
    expect(password).toBeDefined();
    expect(settings).toMatch(/^WARREN_LOCAL_AGENT=external$/m);
    expect(settings).toContain(`DATABASE_URL=${database.url}\n`);
    expect(statSync(envFile).mode & 0o007).toBe(0); // the panel's group may read it, nobody else

    const summaryFile = join(root, 'etc/warren/install-summary');
    expect(statSync(summaryFile).mode & 0o777).toBe(0o600);
    firstSummary = readFileSync(summaryFile, 'utf8');
    // Where the panel listens (WARREN_HOST), not whatever address `hostname -I` lists first.
    expect(firstSummary).toMatch(new RegExp(`^URL: +https://127\\.0\\.0\\.1:${port}${basePath}/$`, 'm'));
    expect(firstSummary).toMatch(/^Username: +admin$/m);
    expect(firstSummary).toContain(`Password:  ${password}\n`);
    expect(firstSummary).toMatch(/^API token: +wrn_\S+$/m);
    expect(output).toContain(firstSummary);
    expect(await tokensNamedInstaller()).toBe(1);
    // The `warren` command, for the CLI on this host.
    expect(readFileSync(join(root, 'usr/local/bin/warren'), 'utf8')).toContain(
      `${ROOT}dist/apps/controller/src/cli/main.js`,
    );

    // The units, with this install's paths; the panel unprivileged, its host's agent as root.
    const panelUnit = readFileSync(join(root, 'etc/systemd/system/warren.service'), 'utf8');
    expect(panelUnit).toContain(`ExecStart=${ROOT}node_modules/.bin/node`);
    expect(panelUnit).toContain(`EnvironmentFile=-${root}/etc/warren/warren.env`);
    expect(panelUnit).toContain(`Environment=WARREN_DATA_DIR=${root}/var/lib/warren\n`);
    const agentUnit = readFileSync(join(root, 'etc/systemd/system/warren-local-agent.service'), 'utf8');
    expect(agentUnit).toContain('User=root');
    expect(agentUnit).toContain(`Environment=WARREN_AGENT_DATA_DIR=${root}/var/lib/warren/local-agent`);
    expect(agentUnit).toContain(`ExecStart=${ROOT}node_modules/.bin/node ${ROOT}dist/apps/agent/src/main.js`);
    // The panel handed the local node's credential over for that unit's agent.
    expect(statSync(join(root, 'var/lib/warren/local-agent/agent.json')).mode & 0o777).toBe(0o600);
  }, 240_000);

  test('a second run upgrades in place: same settings and summary, no new token', async () => {
    const settings = readFileSync(join(root, 'etc/warren/warren.env'), 'utf8');
    const output = await install();
    expect(output).toContain('upgraded in place');
    expect(readFileSync(join(root, 'etc/warren/warren.env'), 'utf8')).toBe(settings);
    expect(readFileSync(join(root, 'etc/warren/install-summary'), 'utf8')).toBe(firstSummary);
    // The summary's secrets are not printed again: an upgrade's output lands in logs.
    expect(output).not.toContain(firstSummary);
    expect(output).toContain(join(root, 'etc/warren/install-summary'));
    expect(await tokensNamedInstaller()).toBe(1);
  }, 240_000);

  test('an unknown option is refused with exit code 2 and changes nothing', async () => {
    const run = runProgram('bash', [script, '--frobnicate'], env());
    expect((await run.exited).code).toBe(2);
    expect(run.stderr).toContain('unknown option --frobnicate');
  });
});
