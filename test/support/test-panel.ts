import pg from 'pg';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type WarrenConfig } from '../../apps/controller/src/config/config.js';
import { startPanel, type Panel } from '../../apps/controller/src/panel.js';
import { DocsService } from '../../apps/controller/src/docs/docs.service.js';
import { createApiClient, type ApiClient } from '#libs/api-client/index.js';
import { REDIS_URL } from './environment.js';
import { dropRedisPrefix, testQueuePrefix } from './leftovers.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';
import { ResponseChecker } from './response-check.js';

export const OWNER = { username: 'owner', password: 'owner-password-123' };

/** What talks to one controller over HTTP, and reads the database it serves. */
export interface PanelEndpoint {
  /** Origin plus base path plus /api, e.g. http://127.0.0.1:40123/api */
  api: string;
  /** Signs in as the owner and returns the session token. */
  login(): Promise<string>;
  /**
   * fetch with JSON in and out; `token` becomes a Bearer header. Every answer is checked against
   * the panel's OpenAPI document (declared status, media type, body schema): a mismatch throws.
   */
  call(
    method: string,
    path: string,
    options?: { token?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<{ status: number; body: any; headers: Headers }>;
  /** The typed client (libs/api-client) for this panel, its answers checked like call()'s. */
  client(token?: string): ApiClient;
  /** Reads the panel's database directly, to check what is stored. */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
}

export interface TestPanel extends PanelEndpoint {
  panel: Panel;
  config: WarrenConfig;
  database: TestDatabase;
  stop(): Promise<void>;
}

export interface TestPanelOptions {
  /**
   * Start on this database instead of a new one (a restart: what the previous panel stored is
   * still there). The caller made it and drops it; stop() leaves it.
   */
  database?: TestDatabase;
}

/**
 * A real panel on a real HTTP port, with its own database on the machine's PostgreSQL and its own
 * key prefix on the machine's Redis (unless `env` chooses otherwise).
 */
export async function startTestPanel(
  env: Record<string, string> = {},
  options: TestPanelOptions = {},
): Promise<TestPanel> {
  const database = options.database ?? (await createTestDatabase());
  const dataDir = mkdtempSync(join(tmpdir(), 'warren-test-'));
  const config = loadConfig({
    WARREN_DATA_DIR: dataDir,
    WARREN_HOST: '127.0.0.1',
    WARREN_PORT: '0',
    WARREN_TLS: 'off',
    DATABASE_URL: database.url,
    REDIS_URL,
    WARREN_QUEUE_PREFIX: testQueuePrefix(),
    WARREN_ADMIN_USERNAME: OWNER.username,
    WARREN_ADMIN_PASSWORD: OWNER.password,
    WARREN_LOG_LEVEL: 'error',
    WARREN_LOCAL_AGENT: 'off',
    // No periodic hop checks unless a test turns them on for hops of its own (docs/testing.md).
    WARREN_HOP_CHECKS: 'off',
    ...env,
  });
  let panel: Panel;
  try {
    panel = await startPanel(config);
  } catch (error) {
    // A panel that did not start leaves nothing behind either.
    if (config.redisUrl) await dropRedisPrefix(config.redisUrl, config.queuePrefix, { keys: !env.WARREN_QUEUE_PREFIX });
    if (!options.database) await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  let checker: ResponseChecker | undefined;
  const check = () => (checker ??= new ResponseChecker(panel.app.get(DocsService).openApi(panel.origin)));
  return {
    ...endpoint(`${panel.origin}${config.basePath}`, config.basePath, database.url, check),
    panel,
    config,
    database,
    async stop() {
      await panel.close();
      // Its nodes' ACL users, and its keys unless the caller chose the prefix (a restart on the
      // same Redis, two controllers sharing one): those are the caller's to drop, at the end.
      if (config.redisUrl)
        await dropRedisPrefix(config.redisUrl, config.queuePrefix, { keys: !env.WARREN_QUEUE_PREFIX });
      if (!options.database) await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Another controller serving the same database as `t` (a second process in a multi-controller
 * test) at `origin`: called and checked as `t` is, against the same OpenAPI document.
 */
export function endpointOf(t: TestPanel, origin: string): PanelEndpoint {
  let checker: ResponseChecker | undefined;
  return endpoint(
    `${origin}${t.config.basePath}`,
    t.config.basePath,
    t.database.url,
    () => (checker ??= new ResponseChecker(t.panel.app.get(DocsService).openApi(origin))),
  );
}

function endpoint(base: string, basePath: string, databaseUrl: string, checker: () => ResponseChecker): PanelEndpoint {
  const api = `${base}/api`;
  const checkResponse = async (method: string, url: string, response: Response, body: unknown) => {
    const path = new URL(url).pathname.slice(basePath.length);
    checker().check(method.toUpperCase(), path, response.status, response.headers.get('content-type'), body);
  };
  // The typed client's fetch: the same check as call(), on a copy of the answer it hands on.
  const checkedFetch = async (request: Request): Promise<Response> => {
    const response = await fetch(request);
    const text = await response.clone().text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: checked by its content type
    }
    await checkResponse(request.method, request.url, response, parsed);
    return response;
  };
  const call: PanelEndpoint['call'] = async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    }
    const url = `${api}/${path.replace(/^\//, '')}`;
    const response = await fetch(url, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    await checkResponse(method, url, response, parsed);
    return { status: response.status, body: parsed, headers: response.headers };
  };
  return {
    api,
    call,
    client: (token) => createApiClient(base, token, { fetch: checkedFetch }),
    async login() {
      const response = await call('POST', 'auth/login', { body: OWNER });
      if (response.status !== 200) throw new Error(`login failed: ${JSON.stringify(response.body)}`);
      return response.body.token as string;
    },
    async query<T>(sql: string, params: unknown[] = []) {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        return (await client.query(sql, params)).rows as T[];
      } finally {
        await client.end();
      }
    },
  };
}
