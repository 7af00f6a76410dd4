import http from 'node:http';
import { freePort } from '../../dist/libs/net/free-port.js';
import { createApiClient } from '../../dist/libs/api-client/index.js';
import { spawnBuilt } from './child.js';

export const BENCH_OWNER = { username: 'bench-owner', password: 'bench-password-123' };

/**
 * The V8 heap flags the panel runs with (`npm start`, deploy/warren.service, deploy/Dockerfile):
 * without them V8 sizes its young generation and heap growth from the host's RAM and the panel's
 * RSS runs to several times its live heap (docs/memory.md).
 */
export const PANEL_NODE_FLAGS = ['--max-semi-space-size=16', '--max-old-space-size=1024', '--expose-gc'];
/** glibc malloc settings of the same launchers: fewer arenas, large blocks given back on free. */
export const PANEL_MALLOC_ENV = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' };

/**
 * The panel exactly as `npm start` runs it (from dist, with PANEL_NODE_FLAGS and PANEL_MALLOC_ENV;
 * `tuned: false` runs it without them), in its own process, on its own database.
 * `redisUrl` undefined runs it with BullMQ's PostgreSQL queue backend (no REDIS_URL at all).
 */
export async function startPanelProcess({ databaseUrl, redisUrl, queuePrefix, dataDir, env = {}, tuned = true }) {
  const port = await freePort();
  const childEnv = {
    ...process.env,
    // No periodic hop checks: a bench sends nothing off this machine (docs/testing.md).
    WARREN_HOP_CHECKS: 'off',
    WARREN_TLS: 'off',
    WARREN_HOST: '127.0.0.1',
    WARREN_PORT: String(port),
    WARREN_DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    WARREN_QUEUE_PREFIX: queuePrefix,
    WARREN_ADMIN_USERNAME: BENCH_OWNER.username,
    WARREN_ADMIN_PASSWORD: BENCH_OWNER.password,
    WARREN_LOG_LEVEL: 'error',
    ...(tuned ? PANEL_MALLOC_ENV : {}),
    ...env,
  };
  if (redisUrl) childEnv.REDIS_URL = redisUrl;
  else delete childEnv.REDIS_URL;
  delete childEnv.WARREN_AGENT_REDIS_URL;
  const panel = spawnBuilt('apps/controller/src/main.js', [], {
    env: childEnv,
    name: 'panel',
    nodeArgs: tuned ? PANEL_NODE_FLAGS : [],
  });
  const origin = await new Promise((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(
      () => reject(new Error(`the panel did not say "panel listening on" within 60 s:\n${panel.tail()}`)),
      60_000,
    );
    panel.child.stdout.on('data', (chunk) => {
      if (buffer === null) return;
      buffer += chunk.toString('utf8');
      const found = buffer.match(/panel listening on (https?:\/\/[^/\s]+)(\/\S*)?/);
      if (found) {
        clearTimeout(timer);
        buffer = null;
        resolve(`${found[1]}${(found[2] ?? '/').replace(/\/$/, '')}`);
      }
    });
    panel.exit.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`the panel exited (code ${code}, signal ${signal}) before listening:\n${panel.tail()}`));
    });
  });
  return {
    pid: panel.pid,
    origin,
    api: `${origin}/api`,
    apiPath: `${new URL(origin).pathname.replace(/\/$/, '')}/api`,
    alive: panel.alive,
    exit: panel.exited,
    tail: panel.tail,
    stop: panel.stop,
  };
}

/** After a failure: whether the panel had exited (and how) or was still running, and its last output. */
export async function reportPanelEnd(panel, graceMs = 500) {
  // Give a dying panel a moment to be reaped, so a crash or an outside kill is named as such.
  await new Promise((resolve) => setTimeout(resolve, graceMs));
  const exit = panel.exit();
  console.error(
    exit
      ? `bench: the panel process had exited (code ${exit.code}, signal ${exit.signal}${exit.signal ? ': killed from outside the bench' : ''}); its last output:\n${panel.tail()}`
      : `bench: the panel was still running; its last output:\n${panel.tail() || '(none)'}`,
  );
}

/**
 * The panel's typed client (libs/api-client: openapi-fetch over the generated types, built into
 * dist) for a bench's API calls, over a keep-alive agent of at most `maxSockets` connections: the
 * bench's concurrency is the number of requests it keeps in flight, as before.
 *
 * - `api.client`: the client, sending `api.token` (once set) as Bearer;
 * - `api.timed(() => api.client.POST(...))` resolves to `{status, body, ms, started}`, `ms` from
 *   the request's start to its parsed answer;
 * - `api.expect(status, api.client.GET(...))` resolves to the body, and fails on another status.
 *
 * Load runs stay raw HTTP: autocannon (bench/lib/load.js) drives its own sockets.
 *
 * The transport is node:http, not Node's fetch: measured with Node 24 on this machine (POSTs of a
 * client body to a trivial server, 8 in flight), openapi-fetch over Node's fetch cost 250-550 µs of
 * the bench process's CPU a request; over node:http with the plain Request/Response below, 80-100
 * µs, against 65-85 µs for the hand-written JSON client it replaced. The bench's own CPU stays out
 * of what it measures.
 */
export function apiClient(panel, maxSockets = 8) {
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  const options = { fetch: fetchOver(agent), Request: PlainRequest };
  let token;
  let client = createApiClient(panel.origin, undefined, options);
  return {
    get token() {
      return token;
    },
    set token(value) {
      token = value;
      client = createApiClient(panel.origin, value, options);
    },
    get client() {
      return client;
    },
    async timed(request) {
      const started = performance.now();
      const { data, error, response } = await request();
      return { status: response.status, body: data ?? error, ms: performance.now() - started, started };
    },
    async expect(status, pending) {
      const { data, error, response } = await pending;
      if (response.status !== status) {
        const { method, url } = response.request;
        throw new Error(
          `${method} ${new URL(url).pathname} answered ${response.status}: ${JSON.stringify(data ?? error).slice(0, 500)}`,
        );
      }
      return data;
    },
    close: () => agent.destroy(),
  };
}

/** What openapi-fetch needs of a Request (url, method, headers, body), the body kept as the string it serialised. */
class PlainRequest {
  constructor(url, init = {}) {
    this.url = url;
    this.method = init.method ?? 'GET';
    this.headers = new Headers(init.headers);
    this.body = init.body ?? null;
  }
}

/** What openapi-fetch reads of a Response (status, ok, headers.get, text, json), over a node:http answer. */
class PlainResponse {
  constructor(request, res, text) {
    this.request = request;
    this.status = res.statusCode;
    this.ok = this.status >= 200 && this.status < 300;
    this.headers = { get: (name) => res.headers[name.toLowerCase()] ?? null };
    this.text = async () => text;
    this.json = async () => JSON.parse(text);
  }
}

/** A `fetch` for openapi-fetch over a node:http keep-alive agent. */
function fetchOver(agent) {
  return (request) =>
    new Promise((resolve, reject) => {
      const url = new URL(request.url);
      const headers = Object.fromEntries(request.headers);
      if (request.body !== null) headers['content-length'] = Buffer.byteLength(request.body);
      const req = http.request(
        {
          agent,
          hostname: url.hostname,
          port: url.port,
          method: request.method,
          path: url.pathname + url.search,
          headers,
        },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => resolve(new PlainResponse(request, res, Buffer.concat(chunks).toString('utf8'))));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(request.body ?? undefined);
    });
}

/** Signs in as the bench owner (session token). */
export async function signIn(api) {
  const login = await api.expect(200, api.client.POST('/api/auth/login', { body: BENCH_OWNER }));
  api.token = login.token;
}

/** Issues an API token (`wrn_…`) through the public API, as an operator would; the caller must be signed in. */
export async function issueApiToken(api, name) {
  const issued = await api.timed(() => api.client.POST('/api/tokens', { body: { name } }));
  if (issued.status !== 201 || !String(issued.body.token).startsWith('wrn_')) {
    throw new Error(`POST /api/tokens answered ${issued.status}: ${JSON.stringify(issued.body)}`);
  }
  return issued.body.token;
}
