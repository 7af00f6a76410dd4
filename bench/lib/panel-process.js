import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { fileURLToPath } from 'node:url';

const ROOT = new URL('../../', import.meta.url);
export const ROOT_DIR = fileURLToPath(ROOT);
export const PANEL_MAIN = fileURLToPath(new URL('dist/apps/controller/src/main.js', ROOT));
export const AGENT_MAIN = fileURLToPath(new URL('dist/apps/agent/src/main.js', ROOT));
export const BENCH_OWNER = { username: 'bench-owner', password: 'bench-password-123' };

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

/** Keeps the last `size` lines of a child's output, for the error message when it dies. */
export function outputTail(size = 40) {
  const lines = [];
  return {
    keep: (prefix) => (chunk) => {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (!line.trim()) continue;
        lines.push(`${prefix}${line}`);
        if (lines.length > size) lines.shift();
      }
    },
    text: () => lines.join('\n'),
  };
}

/**
 * The panel exactly as `npm start` runs it (from dist), in its own process, on its own database.
 * `redisUrl` undefined runs it with BullMQ's PostgreSQL queue backend (no REDIS_URL at all).
 */
export async function startPanelProcess({ databaseUrl, redisUrl, queuePrefix, dataDir, env = {} }) {
  if (!existsSync(PANEL_MAIN)) throw new Error(`${PANEL_MAIN} is missing: run \`npm run build\` (npm run bench does)`);
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
    ...env,
  };
  if (redisUrl) childEnv.REDIS_URL = redisUrl;
  else delete childEnv.REDIS_URL;
  delete childEnv.WARREN_AGENT_REDIS_URL;
  const child = spawn(process.execPath, [PANEL_MAIN], { cwd: ROOT_DIR, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const tail = outputTail();
  child.stderr.on('data', tail.keep('[panel stderr] '));
  let exited = null;
  const exit = new Promise((resolve) => child.once('exit', (code, signal) => resolve((exited = { code, signal }))));
  const origin = await new Promise((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => reject(new Error(`the panel did not say "panel listening on" within 60 s:\n${tail.text()}`)), 60_000);
    child.stdout.on('data', (chunk) => {
      tail.keep('[panel] ')(chunk);
      if (buffer === null) return;
      buffer += chunk.toString('utf8');
      const found = buffer.match(/panel listening on (https?:\/\/[^/\s]+)(\/\S*)?/);
      if (found) {
        clearTimeout(timer);
        buffer = null;
        resolve(`${found[1]}${(found[2] ?? '/').replace(/\/$/, '')}`);
      }
    });
    exit.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`the panel exited (code ${code}, signal ${signal}) before listening:\n${tail.text()}`));
    });
  });
  const stop = async () => {
    if (exited) return;
    child.kill('SIGTERM');
    const timeout = new Promise((resolve) => setTimeout(() => resolve('timeout'), 10_000));
    if ((await Promise.race([exit, timeout])) === 'timeout') {
      child.kill('SIGKILL');
      await exit;
    }
  };
  return {
    pid: child.pid,
    origin,
    apiPath: `${new URL(origin).pathname.replace(/\/$/, '')}/api`,
    alive: () => !exited,
    exit: () => exited,
    tail: tail.text,
    stop,
  };
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
