import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { REDIS_URL } from './environment.js';
import { dropRedisPrefix, testQueuePrefix } from './leftovers.js';
import { startPanelProcess, type PanelProcess } from './spawned-process.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';
import { OWNER } from './test-panel.js';

/**
 * Plain calls to a panel running as a process of its own (spawned-process.ts): no response
 * checking (that needs the panel's document in this process). `origin` and `token` are read on
 * every call, so they follow a panel killed and started again.
 */
export function processApi(origin: () => string, token: () => string) {
  return {
    async call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
      const response = await fetch(`${origin()}/api/${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token()}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: await response.json() };
    },
    /** Signs in as the owner; the session token. */
    async signIn(): Promise<string> {
      const response = await fetch(`${origin()}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(OWNER),
      });
      return ((await response.json()) as { token: string }).token;
    },
  };
}

export interface RestartablePanel {
  /** The panel process running now (another one after restart()). */
  readonly panel: PanelProcess;
  readonly database: TestDatabase;
  /** The Redis key prefix of its queues (with `redis: true`). */
  readonly queuePrefix?: string;
  /** A connection of the test's own to the panel's database. */
  readonly db: pg.Client;
  /** A call as the owner, to whichever process runs now. */
  call: ReturnType<typeof processApi>['call'];
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** SIGKILL, no shutdown: what the process had not committed or handed over is lost. */
  kill(): Promise<void>;
  /** Starts the panel again on the same database and data directory, and signs in. */
  restart(): Promise<void>;
}

/**
 * One panel process the test kills and starts again (the restart specs in test/e2e/): its own
 * database and data directory, the owner signed in, no local agent; everything removed after
 * the file. `redis: true` puts its queues on Redis under a prefix of its own (both runs share it;
 * dropped after the last stop), for a remote node's agent, which needs its queue user there;
 * else the embedded default (BullMQ on PostgreSQL). `env` adds settings (a backup directory). Registers its beforeAll and afterAll: call it
 * at the top of the file, and use the answer in tests.
 */
export function restartablePanel(options: {
  name: string;
  redis?: boolean;
  /** More settings for every start (read when it starts: a test's beforeAll may prepare them). */
  env?: () => Record<string, string> | Promise<Record<string, string>>;
  /**
   * A PostgreSQL server of the test's own to put the database on (one it restarts and kills:
   * private-postgres.ts), started before the panel and stopped after it; else the shared one.
   */
  postgres?: () => Promise<{ url: string; stop(): Promise<void> }>;
}): () => RestartablePanel {
  const dataDir = mkdtempSync(join(tmpdir(), `warren-${options.name}-`));
  const queuePrefix = options.redis ? testQueuePrefix() : undefined;
  let database: TestDatabase | undefined;
  let server: { url: string; stop(): Promise<void> } | undefined;
  let db: pg.Client | undefined;
  let panel: PanelProcess | undefined;
  let token = '';
  const { call, signIn } = processApi(
    () => panel!.origin,
    () => token,
  );

  /** The test's own connection; a server the test restarted ended it, and query() makes another. */
  let broken = false;
  const connect = async () => {
    const client = new pg.Client({ connectionString: database!.url });
    client.on('error', () => (broken = true));
    await client.connect();
    broken = false;
    return client;
  };

  const start = async () => {
    panel = await startPanelProcess({
      WARREN_DATA_DIR: dataDir,
      DATABASE_URL: database!.url,
      WARREN_ADMIN_USERNAME: OWNER.username,
      WARREN_ADMIN_PASSWORD: OWNER.password,
      WARREN_LOCAL_AGENT: 'off',
      WARREN_LOG_LEVEL: 'log',
      ...(queuePrefix ? { REDIS_URL, WARREN_QUEUE_PREFIX: queuePrefix } : {}),
      ...(await options.env?.()),
    });
    token = await signIn();
  };

  beforeAll(async () => {
    server = await options.postgres?.();
    database = await createTestDatabase(server?.url);
    db = await connect();
    await start();
  }, 180_000);

  afterAll(async () => {
    await panel?.stop();
    if (queuePrefix) await dropRedisPrefix(REDIS_URL, queuePrefix);
    await db?.end().catch(() => undefined);
    await database?.drop();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }, 120_000);

  const restartable: RestartablePanel = {
    get panel() {
      return panel!;
    },
    get database() {
      return database!;
    },
    queuePrefix,
    get db() {
      return db!;
    },
    call,
    async query<T>(sql: string, params: unknown[] = []) {
      if (broken) {
        await db!.end().catch(() => undefined);
        db = await connect();
      }
      return (await db!.query(sql, params)).rows as T[];
    },
    async kill() {
      panel!.spawned.child.kill('SIGKILL');
      await panel!.spawned.exited;
    },
    restart: start,
  };
  return () => restartable;
}
