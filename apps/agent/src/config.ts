import { isAbsolute, resolve } from 'node:path';
import { existsSync } from 'node:fs';
import { PIN_PATTERN } from '#libs/contracts/certificate-pin.js';
import { AGENT_ENV } from '#libs/contracts/local-agent.js';
import { AGENT_INSTALL_DIR_ENV } from '#libs/contracts/node-update.js';

/** What the agent reads from its command line and environment, validated once at start. */
export interface AgentConfig {
  /** The panel's address with its base path, e.g. https://panel.example.com:8443/x7k2. */
  controllerUrl?: string;
  /** One-time enrolment secret (`wne_…`); needed only until the agent holds its credential. */
  enrolSecret?: string;
  /** Where the credential, the applied state and the counter spool live (0700). */
  dataDir: string;
  /** Run every host command inside this network namespace (tests; one host, several nodes). */
  netns?: string;
  /** A PEM file of the certificate or CA the controller's TLS must chain to (self-signed panels). */
  caFile?: string;
  /** The panel certificate's pin (`sha256:…`), from the enrolment command of a self-signed panel. */
  pin?: string;
  /** BullMQ's PostgreSQL backend, for the agent on the controller's own host only. */
  queueDatabaseUrl?: string;
  /**
   * The controller may be reached over plain http:// (`--allow-insecure-http`): the link's
   * credential and the enrolment secret then cross the network readable. Off by default.
   */
  allowInsecureHttp: boolean;
  /** How often counters and system samples are read, ms. */
  reportIntervalMs: number;
  /**
   * A link that brings nothing (no message, ping or pong) for this long is dead: a half-open
   * connection (packets dropped, no FIN or RST) is ended and the agent links again.
   */
  linkSilenceMs: number;
  logLevel: 'error' | 'warn' | 'log' | 'debug';
  /** Unset: pretty on a terminal, JSON otherwise. */
  logFormat?: 'json' | 'pretty';
  /**
   * The releases layout the agent runs from (`current` -> `releases/<version>/`), set by its
   * launcher (bin/warren-agent-launcher): only then can it update itself from the panel.
   */
  installDir?: string;
}

export class AgentConfigError extends Error {}

/**
 * Three of the controller's ping intervals (15 s): a live link, even one whose controller is
 * slow to acknowledge under load, is heard from well within it.
 */
export const DEFAULT_LINK_SILENCE_MS = 45_000;

export const AGENT_USAGE = `Usage: warren-agent [--controller URL] [--enrol SECRET] [--pin sha256:HEX] [--data-dir DIR] [--ca FILE] [--netns NAME] [--allow-insecure-http]

Runs on a tunnel host: enrols with the controller once (--enrol, from the node's page or
POST /api/nodes), then applies the node's desired state (WireGuard interfaces, peers, NAT)
and reports counters and system state over one WebSocket.

Options (or environment variables):
  --controller URL   WARREN_CONTROLLER_URL  the panel's address, with its base path
  --enrol SECRET     WARREN_ENROL_SECRET    one-time enrolment secret (wne_…)
  --data-dir DIR     WARREN_AGENT_DATA_DIR  state directory (default /var/lib/warren-agent)
  --pin sha256:HEX   WARREN_CONTROLLER_PIN  trust the panel's certificate with this SHA-256 (its
                     enrolment command carries it when the panel made its own certificate);
                     checked before anything is sent, then kept in the data directory
  --ca FILE          WARREN_CONTROLLER_CA   PEM to trust for the panel's TLS instead
  --netns NAME       WARREN_NETNS           apply inside this network namespace
  --allow-insecure-http  WARREN_ALLOW_INSECURE_HTTP=1  accept an http:// controller (its
                     credential then crosses the network readable); otherwise https:// only
`;

type Env = Record<string, string | undefined>;

/** Options without a value: present means on. */
const SWITCHES: Record<string, string> = {
  '--allow-insecure-http': AGENT_ENV.allowInsecureHttp,
};

const FLAGS: Record<string, string> = {
  '--controller': 'WARREN_CONTROLLER_URL',
  '--enrol': 'WARREN_ENROL_SECRET',
  '--data-dir': AGENT_ENV.dataDir,
  '--ca': AGENT_ENV.controllerCa,
  '--pin': 'WARREN_CONTROLLER_PIN',
  '--netns': 'WARREN_NETNS',
};

export function loadAgentConfig(argv: readonly string[], env: Env = process.env): AgentConfig {
  const values: Env = { ...env };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split('=', 2) as [string, string | undefined];
    if (SWITCHES[flag] && inline === undefined) {
      values[SWITCHES[flag]] = '1';
      continue;
    }
    const variable = FLAGS[flag];
    if (!variable) throw new AgentConfigError(`unknown option ${flag}`);
    const value = inline ?? argv[++i];
    if (value === undefined) throw new AgentConfigError(`${flag} needs a value`);
    values[variable] = value;
  }
  const text = (name: string) => values[name]?.trim() || undefined;
  const controllerUrl = text('WARREN_CONTROLLER_URL');
  const insecure = (text(AGENT_ENV.allowInsecureHttp) ?? '0').toLowerCase();
  if (!['1', 'true', 'on', '0', 'false', 'off'].includes(insecure))
    throw new AgentConfigError(`${AGENT_ENV.allowInsecureHttp}: must be 1 or 0`);
  const allowInsecureHttp = ['1', 'true', 'on'].includes(insecure);
  if (controllerUrl) checkControllerUrl(controllerUrl, allowInsecureHttp, 'WARREN_CONTROLLER_URL');
  const dataDirRaw = text(AGENT_ENV.dataDir) ?? '/var/lib/warren-agent';
  const caFile = text(AGENT_ENV.controllerCa);
  if (caFile && !existsSync(caFile)) throw new AgentConfigError(`WARREN_CONTROLLER_CA: file not found: ${caFile}`);
  const pin = text('WARREN_CONTROLLER_PIN')?.toLowerCase();
  if (pin && !PIN_PATTERN.test(pin))
    throw new AgentConfigError(
      'WARREN_CONTROLLER_PIN: must be sha256: and 64 hex digits, as the enrolment command prints it',
    );
  if (pin && caFile) throw new AgentConfigError('WARREN_CONTROLLER_PIN and WARREN_CONTROLLER_CA: give one of them');
  const netns = text('WARREN_NETNS');
  if (netns && !/^[A-Za-z0-9_.-]{1,64}$/.test(netns)) throw new AgentConfigError('WARREN_NETNS: not a namespace name');
  const interval = Number(text(AGENT_ENV.reportIntervalMs) ?? 2000);
  if (!Number.isInteger(interval) || interval < 100 || interval > 60_000) {
    throw new AgentConfigError('WARREN_AGENT_REPORT_INTERVAL_MS: must be a whole number of ms in 100..60000');
  }
  const linkSilenceMs = Number(text(AGENT_ENV.linkSilenceMs) ?? DEFAULT_LINK_SILENCE_MS);
  if (!Number.isInteger(linkSilenceMs) || linkSilenceMs < 1000 || linkSilenceMs > 600_000) {
    throw new AgentConfigError(`${AGENT_ENV.linkSilenceMs}: must be a whole number of ms in 1000..600000`);
  }
  const logLevel = (text(AGENT_ENV.logLevel) ?? 'log') as AgentConfig['logLevel'];
  if (!['error', 'warn', 'log', 'debug'].includes(logLevel))
    throw new AgentConfigError('WARREN_LOG_LEVEL: must be one of error, warn, log, debug');
  const logFormat = text(AGENT_ENV.logFormat)?.toLowerCase();
  if (logFormat !== undefined && logFormat !== 'json' && logFormat !== 'pretty')
    throw new AgentConfigError('WARREN_LOG_FORMAT: must be json or pretty');
  const installDir = text(AGENT_INSTALL_DIR_ENV);
  if (installDir && !isAbsolute(installDir))
    throw new AgentConfigError(`${AGENT_INSTALL_DIR_ENV}: must be an absolute path (its launcher sets it)`);
  return {
    controllerUrl: controllerUrl?.replace(/\/+$/, ''),
    enrolSecret: text('WARREN_ENROL_SECRET'),
    dataDir: isAbsolute(dataDirRaw) ? dataDirRaw : resolve(process.cwd(), dataDirRaw),
    netns,
    caFile,
    pin,
    queueDatabaseUrl: text(AGENT_ENV.queueDatabaseUrl),
    allowInsecureHttp,
    reportIntervalMs: interval,
    linkSilenceMs,
    logLevel,
    ...(logFormat ? { logFormat } : {}),
    ...(installDir ? { installDir } : {}),
  };
}

/**
 * The one rule for the controller's address, whether it came from the command line or from the
 * stored identity (the local agent's is written by its controller): https://, or http:// only
 * when allowed explicitly. Throws AgentConfigError naming `source`.
 */
export function checkControllerUrl(url: string, allowInsecureHttp: boolean, source: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new AgentConfigError(`${source}: "${url}" is not a URL`);
  }
  if (parsed.protocol === 'https:') return;
  if (parsed.protocol !== 'http:') throw new AgentConfigError(`${source}: must start with https://`);
  if (!allowInsecureHttp) {
    throw new AgentConfigError(
      `${source}: ${parsed.origin} is plain http://, where the node credential would cross the network readable; use https:// (--ca FILE for a self-signed panel), or start with --allow-insecure-http (${AGENT_ENV.allowInsecureHttp}=1) to accept that`,
    );
  }
}
