import type { EnrolResponse } from './agent-link.js';

/**
 * What the controller hands its local agent on the same host, instead of an enrolment over HTTP:
 * the identity file it writes into the agent's data directory, and the environment it starts
 * the agent with. The agent reads the same names (apps/agent/src/config.ts, link/credential.ts).
 */

/** The agent's identity in its data directory (0600): its enrolment answer and the panel's address. */
export const AGENT_IDENTITY_FILE = 'agent.json';

export interface AgentIdentity extends EnrolResponse {
  controllerUrl: string;
}

export const AGENT_ENV = {
  dataDir: 'WARREN_AGENT_DATA_DIR',
  controllerCa: 'WARREN_CONTROLLER_CA',
  /** BullMQ's PostgreSQL backend, for the agent on the controller's own host only. */
  queueDatabaseUrl: 'WARREN_AGENT_QUEUE_DATABASE_URL',
  logLevel: 'WARREN_LOG_LEVEL',
  /** `json` or `pretty`; unset: pretty on a terminal, JSON otherwise. */
  logFormat: 'WARREN_LOG_FORMAT',
  /** `1`: the agent may talk to its controller over plain http:// (`--allow-insecure-http`). */
  allowInsecureHttp: 'WARREN_ALLOW_INSECURE_HTTP',
  /** How often the agent reports counters and samples (ms); the operator's, passed on as it is. */
  reportIntervalMs: 'WARREN_AGENT_REPORT_INTERVAL_MS',
  /** How long the link may stay silent before the agent counts it dead and relinks (ms). */
  linkSilenceMs: 'WARREN_AGENT_LINK_SILENCE_MS',
  /** The network namespace the agent applies in (`--netns`); the operator's, passed on as it is. */
  netns: 'WARREN_NETNS',
} as const;
