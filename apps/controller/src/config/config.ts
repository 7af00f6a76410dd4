import { isAbsolute, join, resolve } from 'node:path';
import { existsSync } from 'node:fs';
import { isIP } from 'node:net';
import { isHostAndPort } from '#libs/net/host-and-port.js';

/** Everything the controller reads from its environment, validated once at start. */
export interface WarrenConfig {
  dataDir: string;
  host: string;
  port: number;
  /** "" or a path prefix such as "/x7k2" (leading slash, no trailing slash). */
  basePath: string;
  tls: { enabled: false } | { enabled: true; certFile?: string; keyFile?: string };
  /** Unset: an embedded PostgreSQL in dataDir. */
  databaseUrl?: string;
  /** Unset: BullMQ runs on its PostgreSQL backend in the same database. */
  redisUrl?: string;
  /** Key prefix for BullMQ in Redis (lets several panels or test runs share one server). */
  queuePrefix: string;
  admin: { username?: string; password?: string };
  /**
   * `scheme://host[:port]` people reach the panel on (WARREN_PUBLIC_URL), for what it prints:
   * enrolment commands, curl examples, docs and OpenAPI addresses. Unset: the address each request
   * reached, validated (http/request-origin.ts).
   */
  publicUrl?: string;
  /** Proxy addresses (IPs or CIDRs) whose X-Forwarded-* headers are believed. */
  trustedProxies: string[];
  sessionTtlHours: number;
  /**
   * The Redis address given to enrolled agents (with their own user and password); defaults to
   * REDIS_URL without its credentials. Set it when agents reach Redis by another address.
   */
  agentRedisUrl?: string;
  /**
   * WARREN_AGENT_PACKAGE: a prebuilt agent package (.tgz, as GET /api/agent/package.tgz serves)
   * served to installers and node updates instead of one built from this panel's own dist/;
   * read at each request, so replacing the file takes effect at once.
   */
  agentPackageFile?: string;
  /** Run an agent for the local node beside the controller (WARREN_LOCAL_AGENT, default on). */
  localAgent: boolean;
  /**
   * WARREN_LOCAL_AGENT=external: the controller hands the local node's credential over in
   * `<dataDir>/local-agent/agent.json` as usual but does not start the agent; a unit of its own
   * (root, deploy/warren-local-agent.service) runs it, while the controller runs unprivileged.
   */
  localAgentExternal: boolean;
  logLevel: 'error' | 'warn' | 'log' | 'debug';
  /** WARREN_LOG_FORMAT; unset: pretty lines on a terminal, JSON lines otherwise. */
  logFormat?: 'json' | 'pretty';
  /** Where backup archives live (WARREN_BACKUP_DIR, default `<dataDir>/backups`). */
  backupDir: string;
  /** The largest archive POST /api/backups/upload accepts (WARREN_BACKUP_MAX_UPLOAD_MB, default 1024). */
  backupMaxUploadBytes: number;
  /** The built web panel's folder (WARREN_WEB_DIR; default `dist/web` in the package). */
  webRoot?: string;
  /**
   * WARREN_HOP_CHECKS=off: no periodic hop checks whatever the setting says. Tests and benches set
   * it (the default probe URL and hop addresses are off the machine; docs/testing.md).
   */
  hopChecks: boolean;
  /**
   * WARREN_AUDIT=off: record nothing in the audit log. For the audit bench's same-run baseline
   * only (bench/audit.js); a panel started so says it at start and in the log itself (docs/audit.md).
   */
  audit: boolean;
  /**
   * WARREN_USAGE_HISTORY=off: counter batches add to the totals but write no per-client usage
   * history. For the usage-history bench's same-run baseline only (bench/usage-history.js).
   */
  usageHistory: boolean;
  /** How often recurring work runs (milliseconds); tests shorten them (docs/testing.md). */
  intervals: Intervals;
  /**
   * The Telegram Bot API the bot talks to (WARREN_TELEGRAM_API_ROOT, default
   * https://api.telegram.org): a self-hosted Bot API server, or a test's local stand-in.
   */
  telegramApiRoot: string;
  /**
   * DNS servers (`ip` or `ip:port`) host checks ask (WARREN_DNS_SERVERS, comma-separated);
   * unset: the system's DNS servers (resolv.conf; never /etc/hosts). Tests point it at a local server.
   */
  dnsServers?: string[];
}

/** The periods of the controller's recurring work; the defaults are production's. */
export interface Intervals {
  /** Client expiry and reset cycles (WARREN_TIME_TRANSITIONS_MS, 30 s). */
  timeTransitionsMs: number;
  /**
   * System history rollups and pruning, and the notification outbox's retention
   * (WARREN_HISTORY_MAINTENANCE_MS, 60 s: minute rollups need one a minute).
   */
  historyMaintenanceMs: number;
  /** Delivery's sweep of nodes behind their desired revision (WARREN_DELIVERY_SWEEP_MS, 5 s). */
  deliverySweepMs: number;
  /** The ping on every agent link; a link silent for one interval is ended (WARREN_AGENT_PING_MS, 15 s). */
  agentPingMs: number;
}

export const DEFAULT_INTERVALS: Intervals = {
  timeTransitionsMs: 30_000,
  historyMaintenanceMs: 60_000,
  deliverySweepMs: 5_000,
  agentPingMs: 15_000,
};

/** A configuration value that cannot be used; start-up stops with this message. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    reason: string,
  ) {
    super(`${variable}: ${reason}`);
  }
}

type Env = Record<string, string | undefined>;

function text(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === '' ? undefined : value;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

const DAY_MS = 86_400_000;

function intervals(env: Env): Intervals {
  const ms = (name: string, fallback: number) => integer(env, name, fallback, 100, DAY_MS);
  return {
    timeTransitionsMs: ms('WARREN_TIME_TRANSITIONS_MS', DEFAULT_INTERVALS.timeTransitionsMs),
    historyMaintenanceMs: ms('WARREN_HISTORY_MAINTENANCE_MS', DEFAULT_INTERVALS.historyMaintenanceMs),
    deliverySweepMs: ms('WARREN_DELIVERY_SWEEP_MS', DEFAULT_INTERVALS.deliverySweepMs),
    agentPingMs: ms('WARREN_AGENT_PING_MS', DEFAULT_INTERVALS.agentPingMs),
  };
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = text(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, 'is not a valid URL');
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must start with ${protocols.map((p) => `${p}//`).join(' or ')}`);
  }
  return raw;
}

function basePath(env: Env): string {
  const raw = text(env, 'WARREN_BASE_PATH');
  if (raw === undefined || raw === '/') return '';
  const trimmed = `/${raw.replace(/^\/+|\/+$/g, '')}`;
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(trimmed)) {
    throw new ConfigError('WARREN_BASE_PATH', 'may hold only letters, digits and . _ ~ - between slashes');
  }
  return trimmed;
}

function tls(env: Env): WarrenConfig['tls'] {
  const mode = (text(env, 'WARREN_TLS') ?? 'on').toLowerCase();
  if (!['on', 'off', 'true', 'false', '1', '0'].includes(mode)) {
    throw new ConfigError('WARREN_TLS', `must be "on" or "off", got "${mode}"`);
  }
  const certFile = text(env, 'WARREN_TLS_CERT');
  const keyFile = text(env, 'WARREN_TLS_KEY');
  if (['off', 'false', '0'].includes(mode)) return { enabled: false };
  if (Boolean(certFile) !== Boolean(keyFile)) {
    throw new ConfigError(certFile ? 'WARREN_TLS_KEY' : 'WARREN_TLS_CERT', 'must be set together with its pair');
  }
  for (const [name, file] of [
    ['WARREN_TLS_CERT', certFile],
    ['WARREN_TLS_KEY', keyFile],
  ] as const) {
    if (file && !existsSync(file)) throw new ConfigError(name, `file not found: ${file}`);
  }
  return { enabled: true, certFile, keyFile };
}

function publicUrl(env: Env): string | undefined {
  const raw = url(env, 'WARREN_PUBLIC_URL', ['http:', 'https:']);
  if (raw === undefined) return undefined;
  const parsed = new URL(raw);
  // The WHATWG parser lets `;`, `$` or quotes through in a host name; printed commands must not.
  if (
    !isHostAndPort(parsed.host) ||
    parsed.username ||
    parsed.password ||
    parsed.pathname !== '/' ||
    parsed.search ||
    parsed.hash
  ) {
    throw new ConfigError(
      'WARREN_PUBLIC_URL',
      'must be http(s)://host[:port] and nothing more (WARREN_BASE_PATH adds the path)',
    );
  }
  return parsed.origin;
}

function trustedProxies(env: Env): string[] {
  const raw = text(env, 'WARREN_TRUSTED_PROXIES');
  if (!raw) return [];
  return raw.split(',').map((entry) => {
    const value = entry.trim();
    const [address, bits] = value.split('/');
    const family = isIP(address ?? '');
    const maxBits = family === 6 ? 128 : 32;
    if (!family || (bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= maxBits))) {
      throw new ConfigError('WARREN_TRUSTED_PROXIES', `"${value}" is not an IP address or CIDR`);
    }
    return value;
  });
}

export function loadConfig(env: Env = process.env): WarrenConfig {
  const dataDirRaw = text(env, 'WARREN_DATA_DIR') ?? './data';
  const dataDir = absolute(dataDirRaw);
  const tlsConfig = tls(env);
  const host = text(env, 'WARREN_HOST') ?? '0.0.0.0';
  if (!isIP(host) && !/^[A-Za-z0-9.-]+$/.test(host))
    throw new ConfigError('WARREN_HOST', `"${host}" is not an address`);
  const username = text(env, 'WARREN_ADMIN_USERNAME');
  const password = env.WARREN_ADMIN_PASSWORD;
  if (username !== undefined && !/^[A-Za-z0-9_.@-]{1,64}$/.test(username)) {
    throw new ConfigError('WARREN_ADMIN_USERNAME', 'must be 1..64 of letters, digits and _ . @ -');
  }
  if (password !== undefined && password !== '' && password.length < 8) {
    throw new ConfigError('WARREN_ADMIN_PASSWORD', 'must be at least 8 characters');
  }
  const prefix = text(env, 'WARREN_QUEUE_PREFIX') ?? 'warren';
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(prefix))
    throw new ConfigError('WARREN_QUEUE_PREFIX', 'must be 1..64 of letters, digits, _ and -');
  const logLevel = (text(env, 'WARREN_LOG_LEVEL') ?? 'log') as WarrenConfig['logLevel'];
  if (!['error', 'warn', 'log', 'debug'].includes(logLevel)) {
    throw new ConfigError('WARREN_LOG_LEVEL', 'must be one of error, warn, log, debug');
  }
  const logFormat = text(env, 'WARREN_LOG_FORMAT')?.toLowerCase();
  if (logFormat !== undefined && logFormat !== 'json' && logFormat !== 'pretty')
    throw new ConfigError('WARREN_LOG_FORMAT', 'must be json or pretty');
  const redisUrl = url(env, 'REDIS_URL', ['redis:', 'rediss:']);
  const hopChecks = (text(env, 'WARREN_HOP_CHECKS') ?? 'on').toLowerCase();
  if (!['on', 'off'].includes(hopChecks))
    throw new ConfigError('WARREN_HOP_CHECKS', `must be "on" or "off", got "${hopChecks}"`);
  const audit = (text(env, 'WARREN_AUDIT') ?? 'on').toLowerCase();
  if (!['on', 'off'].includes(audit)) throw new ConfigError('WARREN_AUDIT', `must be "on" or "off", got "${audit}"`);
  const usageHistory = (text(env, 'WARREN_USAGE_HISTORY') ?? 'on').toLowerCase();
  if (!['on', 'off'].includes(usageHistory))
    throw new ConfigError('WARREN_USAGE_HISTORY', `must be "on" or "off", got "${usageHistory}"`);
  const localAgent = (text(env, 'WARREN_LOCAL_AGENT') ?? 'on').toLowerCase();
  if (!['on', 'off', 'external', 'true', 'false', '1', '0'].includes(localAgent)) {
    throw new ConfigError('WARREN_LOCAL_AGENT', `must be "on", "off" or "external", got "${localAgent}"`);
  }
  // The external agent has no way to get the embedded database's address: its queue is Redis.
  if (localAgent === 'external' && !redisUrl)
    throw new ConfigError(
      'WARREN_LOCAL_AGENT',
      '"external" needs REDIS_URL (the external agent takes its jobs from Redis)',
    );
  const dnsServers = text(env, 'WARREN_DNS_SERVERS')
    ?.split(',')
    .map((server) => server.trim())
    .filter(Boolean);
  for (const server of dnsServers ?? []) {
    const ip = server.replace(/^\[(.*)\](:\d+)?$/, '$1').replace(/^([\d.]+):\d+$/, '$1');
    if (isIP(ip) === 0) throw new ConfigError('WARREN_DNS_SERVERS', `"${server}" is not ip or ip:port`);
  }
  return {
    dataDir,
    host,
    port: integer(env, 'WARREN_PORT', tlsConfig.enabled ? 8443 : 8080, 0, 65535),
    basePath: basePath(env),
    tls: tlsConfig,
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    redisUrl,
    agentRedisUrl:
      url(env, 'WARREN_AGENT_REDIS_URL', ['redis:', 'rediss:']) ??
      (redisUrl ? withoutCredentials(redisUrl) : undefined),
    localAgent: ['on', 'true', '1', 'external'].includes(localAgent),
    ...(text(env, 'WARREN_AGENT_PACKAGE') ? { agentPackageFile: absolute(text(env, 'WARREN_AGENT_PACKAGE')!) } : {}),
    localAgentExternal: localAgent === 'external',
    queuePrefix: prefix,
    admin: { username, password: password === '' ? undefined : password },
    publicUrl: publicUrl(env),
    trustedProxies: trustedProxies(env),
    sessionTtlHours: integer(env, 'WARREN_SESSION_TTL_HOURS', 24, 1, 24 * 90),
    logLevel,
    ...(logFormat ? { logFormat: logFormat as WarrenConfig['logFormat'] } : {}),
    backupDir: absolute(text(env, 'WARREN_BACKUP_DIR') ?? join(dataDir, 'backups')),
    backupMaxUploadBytes: integer(env, 'WARREN_BACKUP_MAX_UPLOAD_MB', 1024, 1, 1024 * 1024) * 1024 * 1024,
    ...(text(env, 'WARREN_WEB_DIR') ? { webRoot: absolute(text(env, 'WARREN_WEB_DIR')!) } : {}),
    hopChecks: hopChecks === 'on',
    audit: audit === 'on',
    usageHistory: usageHistory === 'on',
    intervals: intervals(env),
    telegramApiRoot: (url(env, 'WARREN_TELEGRAM_API_ROOT', ['http:', 'https:']) ?? 'https://api.telegram.org').replace(
      /\/+$/,
      '',
    ),
    ...(dnsServers?.length ? { dnsServers } : {}),
  };
}

function absolute(path: string): string {
  return isAbsolute(path) ? path : resolve(process.cwd(), path);
}

function withoutCredentials(raw: string): string {
  const parsed = new URL(raw);
  parsed.username = '';
  parsed.password = '';
  return parsed.toString();
}

/**
 * For the entry points (`npm start`, the CLI): the configuration, or undefined after printing
 * the offending variable to stderr, so the caller exits with code 2.
 */
export function loadConfigOrReport(env: Env = process.env): WarrenConfig | undefined {
  try {
    return loadConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`warren: configuration error: ${error.message}`);
    return undefined;
  }
}
