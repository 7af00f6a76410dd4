import type { MikroORM } from '@mikro-orm/postgresql';
import type { WarrenConfig } from './config/config.js';
import type { PreparedPool } from './database/prepared-pool.js';
import type { PanelMetrics } from './metrics/panel-metrics.js';
import type { QueueBackend } from './queue/queue-backend.js';

/** What start-up prepared before Nest runs: validated config, an open database, the queue store. */
export interface PanelRuntime {
  config: WarrenConfig;
  orm: MikroORM;
  /** The database the panel runs on (the embedded one's address when DATABASE_URL is unset). */
  databaseUrl: string;
  queues: QueueBackend;
  /** Named prepared statements for the queries every request runs. */
  prepared: PreparedPool;
  /** What GET /api/metrics serves; services record into it (injectable as PanelMetrics). */
  metrics: PanelMetrics;
  /** True when the panel serves a certificate it made itself (curl examples then add -k). */
  selfSignedTls: boolean;
  /**
   * The SHA-256 of that self-made certificate (hex, of its DER), which enrolment commands carry
   * for the agent to pin (`--pin sha256:…`); absent with an operator's certificate or plain HTTP.
   */
  certificatePin?: string;
  /**
   * The same certificate's public key as curl pins it (`sha256//<base64 of the SPKI's SHA-256>`),
   * for the `curl --pinnedpubkey` that fetches the agent installer in the enrolment command.
   */
  publicKeyPin?: string;
}

export const WARREN_CONFIG = Symbol('WARREN_CONFIG');
export const QUEUE_BACKEND = Symbol('QUEUE_BACKEND');
export const PANEL_RUNTIME = Symbol('PANEL_RUNTIME');
export const PREPARED_POOL = Symbol('PREPARED_POOL');
