import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AGENT_ENV, AGENT_IDENTITY_FILE } from '#libs/contracts/local-agent.js';
import { pinOfPem } from '#libs/contracts/certificate-pin.js';
import { PINNED_CERTIFICATE_FILE } from '../../apps/agent/src/link/controller-trust.js';
import { AGENT_MAIN } from '../support/agent-process.js';
import { anyCertHttps } from '../support/any-cert-https.js';
import { TestNamespace } from '../support/netns.js';
import { Redis } from 'ioredis';
import { startRedisServer, type TestRedisServer } from '../support/redis-server.js';
import {
  PANEL_MAIN,
  run,
  runToEnd,
  startPanelProcess,
  waitForOutput,
  type Spawned,
} from '../support/spawned-process.js';
import { freePort } from '../../libs/net/free-port.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { OWNER, startTestPanel, type TestPanel } from '../support/test-panel.js';
import { waitFor } from '../support/wait-for.js';
import { REDIS_URL } from '../support/environment.js';
import { dropRedisPrefix, testQueuePrefix } from '../support/leftovers.js';

/**
 * What the agent is given and what it accepts: it refuses a plain http:// controller unless told
 * so explicitly, and the local agent the controller starts inherits none of the controller's
 * credentials (read from the running agent's /proc/<pid>/environ). The built agent and panel.
 */

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'warren-agent-env-'));
  dirs.push(dir);
  return dir;
}

describe('the controller address', () => {
  test('http:// is refused without --allow-insecure-http, naming the flag', async () => {
    const refused = await runToEnd(
      AGENT_MAIN,
      ['--controller', 'http://127.0.0.1:9', '--enrol', 'wne_x', '--data-dir', tempDir()],
      { PATH: process.env.PATH },
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /WARREN_CONTROLLER_URL: http:\/\/127\.0\.0\.1:9 is plain http:\/\/.*--allow-insecure-http/,
    );

    // With the flag it goes on to enrol (and fails only because nothing listens there).
    const allowed = await runToEnd(
      AGENT_MAIN,
      ['--controller', 'http://127.0.0.1:9', '--enrol', 'wne_x', '--data-dir', tempDir(), '--allow-insecure-http'],
      {
        PATH: process.env.PATH,
      },
    );
    expect(allowed.code).toBe(1);
    expect(allowed.stderr).not.toMatch(/plain http/);
    expect(allowed.stderr).toMatch(/ECONNREFUSED|cannot start/);
  });

  test('an identity stored with an http:// controller is refused the same way', async () => {
    const dataDir = tempDir();
    const identity = {
      nodeId: '00000000-0000-4000-8000-000000000000',
      nodeName: 'n',
      credential: 'wnc_x',
      queue: { kind: 'postgres' },
      controllerUrl: 'http://127.0.0.1:9',
    };
    writeFileSync(join(dataDir, AGENT_IDENTITY_FILE), JSON.stringify(identity), { mode: 0o600 });
    const refused = await runToEnd(AGENT_MAIN, ['--data-dir', dataDir], { PATH: process.env.PATH });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/is plain http:\/\/.*--allow-insecure-http/);
  });
});

describe('a panel with its own certificate: the enrolment command pins it', () => {
  let t: TestPanel;
  let token: string;
  let namespace: TestNamespace;
  beforeAll(async () => {
    t = await startTestPanel({ WARREN_TLS: 'on' });
    token = (await anyCertHttps(`${t.panel.origin}/api/auth/login`, { method: 'POST', body: OWNER })).body.token;
    namespace = await TestNamespace.create();
  }, 120_000);
  afterAll(async () => {
    await namespace?.destroy();
    await t?.stop();
  }, 60_000);

  const createNode = async () =>
    (
      await anyCertHttps(`${t.panel.origin}/api/nodes`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: { name: `pinned-${Date.now()}`, address: '192.0.2.10' },
      })
    ).body;

  test('the agent checks the pin before it sends anything, enrols with it, links, and keeps the certificate', async () => {
    const pin = pinOfPem(readFileSync(join(t.config.dataDir, 'tls', 'cert.pem'), 'utf8'));
    const node = await createNode();
    expect(node.enrolment.agentCommand).toBe(
      `WARREN_ENROL_SECRET='${node.enrolment.secret}' warren-agent --controller '${t.panel.origin}' --pin ${pin}`,
    );
    const args = ['--controller', t.panel.origin, '--enrol', node.enrolment.secret, '--netns', namespace.name];

    // A wrong pin: refused before the secret is sent (it still enrols below).
    const wrong = await runToEnd(AGENT_MAIN, [...args, '--data-dir', tempDir(), '--pin', `sha256:${'0'.repeat(64)}`], {
      PATH: process.env.PATH,
    });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain(
      `presents a certificate whose pin is ${pin}, not sha256:${'0'.repeat(64)}: refusing to send it anything`,
    );
    // Without a pin or a CA the self-made certificate is not trusted.
    const unpinned = await runToEnd(AGENT_MAIN, [...args, '--data-dir', tempDir()], { PATH: process.env.PATH });
    expect(unpinned.code).toBe(1);
    expect(unpinned.stderr).toMatch(/self[- ]signed certificate/);

    const dataDir = tempDir();
    const agent = run(AGENT_MAIN, [...args, '--data-dir', dataDir, '--pin', pin], { PATH: process.env.PATH });
    try {
      await waitFor('the pinned agent connected', async () => {
        const view = (
          await anyCertHttps(`${t.panel.origin}/api/nodes/${node.id}`, {
            headers: { authorization: `Bearer ${token}` },
          })
        ).body;
        return view.agent.state === 'connected' ? true : undefined;
      });
      expect(pinOfPem(readFileSync(join(dataDir, PINNED_CERTIFICATE_FILE), 'utf8'))).toBe(pin);
    } finally {
      agent.child.kill('SIGTERM');
      await agent.exited;
    }
    // A later start needs no pin: the kept certificate is trusted.
    const again = run(AGENT_MAIN, ['--data-dir', dataDir, '--netns', namespace.name], { PATH: process.env.PATH });
    try {
      await waitForOutput(again, `node ${node.name} (${node.id})`, 60_000);
    } finally {
      again.child.kill('SIGTERM');
      await again.exited;
    }
  });
});

describe('the local agent', () => {
  const planted = {
    WARREN_ADMIN_PASSWORD: 'owner-password-123',
    WARREN_TLS_KEY: '/secret/panel.key',
    CLOUD_API_TOKEN: 'operator-cloud-secret',
  };
  let redis: TestRedisServer;
  let database: TestDatabase;
  let panel: Spawned;
  let origin: string;
  let redisUrl: string;

  beforeAll(async () => {
    // A Redis of the test's own with a password: REDIS_URL then carries the controller's credentials.
    redis = await startRedisServer();
    const admin = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    await admin.call('ACL', 'SETUSER', 'warren-admin', 'on', '>controller-redis-secret', '~*', '&*', '+@all');
    await admin.call('ACL', 'SETUSER', 'default', 'off');
    admin.disconnect();
    redisUrl = redis.url.replace('redis://', 'redis://warren-admin:controller-redis-secret@');
    database = await createTestDatabase();
    // The built panel as production runs it, with its settings and secrets in its environment.
    const started = await startPanelProcess({
      WARREN_DATA_DIR: tempDir(),
      DATABASE_URL: database.url,
      REDIS_URL: redisUrl,
      WARREN_ADMIN_USERNAME: 'owner',
      WARREN_LOCAL_AGENT: 'on',
      // The operator's agent settings, passed on as they are (the link silence once was not).
      [AGENT_ENV.reportIntervalMs]: '1500',
      [AGENT_ENV.linkSilenceMs]: '30000',
      ...planted,
    });
    panel = started.spawned;
    origin = started.origin;
  }, 180_000);
  afterAll(async () => {
    if (panel && panel.child.exitCode === null) {
      panel.child.kill('SIGTERM');
      await panel.exited;
    }
    await database?.drop();
    await redis?.stop();
  }, 60_000);

  test("inherits none of the controller's credentials, and works with what it is given", async () => {
    const pid = await waitFor('the local agent process', () => childRunning(panel.child.pid!, AGENT_MAIN), 60_000);
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
    const names = environ.map((entry) => entry.slice(0, entry.indexOf('=')));

    expect(names).toEqual(
      expect.arrayContaining([AGENT_ENV.dataDir, AGENT_ENV.logLevel, AGENT_ENV.allowInsecureHttp, 'PATH']),
    );
    // What it inherits, its own settings, and Node's IPC channel to the controller (its lifeline).
    const expected = [
      'PATH',
      'HOME',
      'LANG',
      'LC_ALL',
      'TZ',
      'TMPDIR',
      ...Object.values(AGENT_ENV),
      'NODE_CHANNEL_FD',
      'NODE_CHANNEL_SERIALIZATION_MODE',
    ];
    expect(names.filter((name) => !expected.includes(name))).toEqual([]);
    for (const secret of ['controller-redis-secret', ...Object.values(planted), database.url]) {
      expect(environ.filter((entry) => entry.includes(secret))).toEqual([]);
    }
    expect(environ).toEqual(
      expect.arrayContaining([`${AGENT_ENV.reportIntervalMs}=1500`, `${AGENT_ENV.linkSilenceMs}=30000`]),
    );
    // Redis queue mode: its queue access is its own Redis user, from its identity file.
    expect(names).not.toContain(AGENT_ENV.queueDatabaseUrl);

    // And it is the local node's agent, linked, with that environment.
    const login = await fetch(`${origin}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'owner', password: planted.WARREN_ADMIN_PASSWORD }),
    });
    const { token } = (await login.json()) as { token: string };
    await waitFor(
      'the local agent linked',
      async () => {
        const nodes = (await (
          await fetch(`${origin}/api/nodes`, { headers: { authorization: `Bearer ${token}` } })
        ).json()) as { isLocal: boolean; agent: { state: string } }[];
        return nodes.find((node) => node.isLocal)?.agent.state === 'connected';
      },
      60_000,
    );
  }, 180_000);
});

describe('the local agent in a unit of its own (WARREN_LOCAL_AGENT=external, as deploy/install.sh runs it)', () => {
  let database: TestDatabase;
  let namespace: TestNamespace;
  const dataDir = tempDir();
  const queuePrefix = testQueuePrefix('x');
  let port: number;
  const panelEnv = (): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH,
    WARREN_DATA_DIR: dataDir,
    WARREN_HOST: '127.0.0.1',
    WARREN_PORT: String(port),
    DATABASE_URL: database.url,
    REDIS_URL,
    WARREN_QUEUE_PREFIX: queuePrefix,
    WARREN_ADMIN_USERNAME: OWNER.username,
    WARREN_ADMIN_PASSWORD: OWNER.password,
    WARREN_LOCAL_AGENT: 'external',
  });
  // What warren-local-agent.service gives the agent.
  const startAgent = () =>
    run(AGENT_MAIN, [], {
      PATH: process.env.PATH,
      [AGENT_ENV.dataDir]: join(dataDir, 'local-agent'),
      [AGENT_ENV.controllerCa]: join(dataDir, 'tls', 'cert.pem'),
      WARREN_NETNS: namespace.name,
    });
  const startPanel = async () => {
    const panel = run(PANEL_MAIN, [], panelEnv());
    await waitForOutput(panel, 'warren: panel listening on', 120_000);
    return panel;
  };
  const stopProcess = async (spawned: Spawned | undefined) => {
    if (spawned && spawned.child.exitCode === null) {
      spawned.child.kill('SIGTERM');
      await spawned.exited;
    }
  };
  const localAgentState = async () => {
    const origin = `https://127.0.0.1:${port}`;
    const token = (await anyCertHttps(`${origin}/api/auth/login`, { method: 'POST', body: OWNER })).body.token;
    const nodes = (await anyCertHttps(`${origin}/api/nodes`, { headers: { authorization: `Bearer ${token}` } }))
      .body as { isLocal: boolean; agent: { state: string } }[];
    return nodes.find((node) => node.isLocal)?.agent.state;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    namespace = await TestNamespace.create();
    port = await freePort();
  }, 60_000);
  afterAll(async () => {
    await namespace?.destroy();
    await dropRedisPrefix(REDIS_URL, queuePrefix);
    await database?.drop();
  }, 60_000);

  test('the panel starts no agent but hands the credential over; the agent in its own process links, and after a panel restart picks up the new credential', async () => {
    let panel: Spawned | undefined = await startPanel();
    let agent: Spawned | undefined;
    try {
      expect(childRunning(panel.child.pid!, AGENT_MAIN)).toBeUndefined();
      expect(panel.stdout + panel.stderr).toContain('WARREN_LOCAL_AGENT=external');
      agent = startAgent();
      await waitFor(
        'the external local agent linked',
        async () => ((await localAgentState()) === 'connected' ? true : undefined),
        60_000,
      );

      // A restart issues a new credential: the agent holding the old one is refused, finds the
      // newer one in its identity file and stops, for its unit to start it again.
      await stopProcess(panel);
      panel = await startPanel();
      const { code } = await agent.exited;
      expect(code).toBe(0);
      expect(agent.stdout + agent.stderr).toContain(
        'the identity file holds a newer credential than this agent: restarting to use it',
      );
      agent = startAgent();
      await waitFor(
        'the restarted local agent linked',
        async () => ((await localAgentState()) === 'connected' ? true : undefined),
        60_000,
      );
    } finally {
      await stopProcess(agent);
      await stopProcess(panel);
    }
  }, 300_000);
});

/** The pid of a running child of `parentPid` whose command line runs `script`. */
function childRunning(parentPid: number, script: string): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent !== parentPid) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').includes(script)) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}
