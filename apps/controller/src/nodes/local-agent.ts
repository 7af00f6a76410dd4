import { Logger } from '@nestjs/common';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WarrenConfig } from '../config/config.js';
import type { AgentCredentialsService } from './enrolment/agent-credentials.service.js';
import { writeJsonAtomic } from '#libs/files/atomic-file.js';
import { AGENT_ENV, AGENT_IDENTITY_FILE, type AgentIdentity } from '#libs/contracts/local-agent.js';

/** The built agent beside the built controller (dist/apps/agent/src/main.js). */
const AGENT_MAIN = fileURLToPath(new URL('../../../agent/src/main.js', import.meta.url));
const MAX_BACKOFF_MS = 30_000;

/**
 * What the local agent inherits of the controller's environment: what any process needs to run
 * (the tools' PATH, locale, time zone, temporary directory) and the operator's own agent settings
 * (its report interval and link silence; WARREN_NETNS, the namespace it applies in), nothing else. Not the controller's settings: REDIS_URL and DATABASE_URL carry its credentials,
 * WARREN_ADMIN_PASSWORD and the TLS key path are its secrets, and whatever else the operator keeps
 * in its environment is none of the agent's business. The agent gets its queue access from its
 * identity file and, in PostgreSQL queue mode only, the database address it needs.
 */
const INHERITED = [
  'PATH',
  'HOME',
  'LANG',
  'LC_ALL',
  'TZ',
  'TMPDIR',
  AGENT_ENV.reportIntervalMs,
  AGENT_ENV.linkSilenceMs,
  AGENT_ENV.netns,
];

function localAgentEnvironment(parent: NodeJS.ProcessEnv, own: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of INHERITED) if (parent[name] !== undefined) env[name] = parent[name];
  return { ...env, ...own };
}

export interface LocalAgent {
  stop(): Promise<void>;
}

/**
 * Runs an agent for the local node beside the controller, so a fresh install manages its own
 * host. It gets a fresh credential at every start, written to its data directory (0600) rather
 * than sent over the network; in PostgreSQL queue mode it also gets the database address, in
 * its environment, which carries nothing else of the controller's (localAgentEnvironment). It trusts exactly the panel's own certificate. When it exits it is started
 * again, with backoff; when the host cannot apply (not root, tools missing) it says so on its
 * link and the node shows the gap.
 */
export async function startLocalAgent(options: {
  config: WarrenConfig;
  credentials: AgentCredentialsService;
  localNodeId: string;
  /** The panel as the agent reaches it: scheme, loopback address, port and base path. */
  panelUrl: string;
  /** The self-signed certificate file the panel serves, if it made its own. */
  caFile?: string;
  databaseUrl: string;
}): Promise<LocalAgent> {
  const logger = new Logger('local-agent');
  const dataDir = join(options.config.dataDir, 'local-agent');
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const identity = await options.credentials.issueLocalCredential(options.localNodeId);
  const stored: AgentIdentity = { ...identity, controllerUrl: options.panelUrl };
  writeJsonAtomic(join(dataDir, AGENT_IDENTITY_FILE), stored);

  if (options.config.localAgentExternal) {
    // Its own unit runs it as root; it reads the identity written above (and restarts itself when
    // a newer one replaces the credential it holds: a controller restart issues a fresh one).
    logger.log(
      `local agent credential written to ${dataDir}; the agent itself runs in its own unit (WARREN_LOCAL_AGENT=external)`,
    );
    return { stop: async () => undefined };
  }
  // Checked here, not before: in external mode the agent is its own unit's business.
  if (!existsSync(AGENT_MAIN)) {
    logger.warn(`the agent is not built (${AGENT_MAIN}): run npm run build; the local node's agent does not run`);
    return { stop: async () => undefined };
  }

  const env = localAgentEnvironment(process.env, {
    [AGENT_ENV.dataDir]: dataDir,
    [AGENT_ENV.logLevel]: options.config.logLevel,
    ...(options.config.logFormat ? { [AGENT_ENV.logFormat]: options.config.logFormat } : {}),
    ...(options.caFile ? { [AGENT_ENV.controllerCa]: options.caFile } : {}),
    ...(identity.queue.kind === 'postgres' ? { [AGENT_ENV.queueDatabaseUrl]: options.databaseUrl } : {}),
    // The panel serving plain HTTP (behind a TLS proxy): its own agent reaches it on this host
    // (loopback, or the address it listens on), so the credential never crosses a network.
    ...(options.panelUrl.startsWith('http://') ? { [AGENT_ENV.allowInsecureHttp]: '1' } : {}),
  });

  let child: ChildProcess | undefined;
  let stopped = false;
  let failures = 0;
  let restartTimer: NodeJS.Timeout | undefined;
  const launch = () => {
    const startedAt = Date.now();
    // Its log lines go where the controller's go, already labelled by the agent's own logger. The
    // IPC channel is its lifeline: when the controller dies (even by SIGKILL) the channel closes
    // and the agent stops, so a restarted controller never finds an orphan working its queue.
    child = spawn(process.execPath, [AGENT_MAIN], { env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.once('exit', (code, signal) => {
      child = undefined;
      if (stopped) return;
      failures = Date.now() - startedAt > 60_000 ? 0 : failures + 1;
      const delay = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.max(0, failures - 1));
      logger.warn(
        `the local agent exited (${signal ?? `code ${code}`}); starting it again in ${Math.round(delay / 1000)} s`,
      );
      restartTimer = setTimeout(launch, delay);
      restartTimer.unref();
    });
  };
  launch();
  return {
    async stop() {
      stopped = true;
      clearTimeout(restartTimer);
      const running = child;
      if (!running) return;
      await new Promise<void>((resolve) => {
        running.once('exit', () => resolve());
        running.kill('SIGTERM');
        // Not unref'd: the controller stays until its agent is gone, never leaving it behind.
        const kill = setTimeout(() => running.kill('SIGKILL'), 12_000);
        running.once('exit', () => clearTimeout(kill));
      });
    },
  };
}
