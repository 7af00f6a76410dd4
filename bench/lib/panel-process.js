import http from 'node:http';
import net from 'node:net';
import { spawnBuilt } from './child.js';

export const BENCH_OWNER = { username: 'bench-owner', password: 'bench-password-123' };

/**
 * The V8 heap flags the panel runs with (`npm start`, deploy/warren.service, deploy/Dockerfile):
 * without them V8 sizes its young generation and heap growth from the host's RAM and the panel's
 * RSS runs to several times its live heap (docs/memory.md).
 */
export const PANEL_NODE_FLAGS = ['--max-semi-space-size=16', '--max-old-space-size=1024'];
/** glibc malloc settings of the same launchers: fewer arenas, large blocks given back on free. */
export const PANEL_MALLOC_ENV = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' };

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * The panel exactly as `npm start` runs it (from dist, with PANEL_NODE_FLAGS and PANEL_MALLOC_ENV;
 * `tuned: false` runs it without them), in its own process, on its own database.
 * `redisUrl` undefined runs it with BullMQ's PostgreSQL queue backend (no REDIS_URL at all).
 */
export async function startPanelProcess({ databaseUrl, redisUrl, queuePrefix, dataDir, env = {}, tuned = true }) {
  const port = await freePort();
  const childEnv = {
    ...process.env,
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
  const panel = spawnBuilt('apps/controller/src/main.js', [], { env: childEnv, name: 'panel', nodeArgs: tuned ? PANEL_NODE_FLAGS : [] });
  const origin = await new Promise((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => reject(new Error(`the panel did not say "panel listening on" within 60 s:\n${panel.tail()}`)), 60_000);
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
 * A JSON client over a keep-alive agent: `call(method, path, body)` resolves to
 * `{status, body, ms}`; paths are relative to the panel's /api. `call.token` is sent as Bearer.
 */
export function apiClient(panel, maxSockets = 8) {
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  const { hostname, port } = new URL(panel.origin);
  const call = (method, path, body) =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const headers = { accept: 'application/json' };
      if (call.token) headers.authorization = `Bearer ${call.token}`;
      if (payload !== undefined) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = Buffer.byteLength(payload);
      }
      const started = performance.now();
      const req = http.request({ agent, hostname, port, method, path: `${panel.apiPath}/${path}`, headers }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const ms = performance.now() - started;
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = text;
          }
          resolve({ status: res.statusCode, body: parsed, ms, started });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(payload);
    });
  call.token = undefined;
  call.close = () => agent.destroy();
  /** Like call(), but fails unless the status is the expected one; resolves to the body. */
  call.expect = async (status, method, path, body) => {
    const response = await call(method, path, body);
    if (response.status !== status) throw new Error(`${method} /api/${path} answered ${response.status}: ${JSON.stringify(response.body).slice(0, 500)}`);
    return response.body;
  };
  return call;
}

/** Signs in as the bench owner (session token). */
export async function signIn(call) {
  const login = await call.expect(200, 'POST', 'auth/login', BENCH_OWNER);
  call.token = login.token;
}

/** Issues an API token (`wrn_…`) through the public API, as an operator would; the caller must be signed in. */
export async function issueApiToken(call, name) {
  const issued = await call('POST', 'tokens', { name });
  if (issued.status !== 201 || !String(issued.body.token).startsWith('wrn_')) {
    throw new Error(`POST /api/tokens answered ${issued.status}: ${JSON.stringify(issued.body)}`);
  }
  return issued.body.token;
}
