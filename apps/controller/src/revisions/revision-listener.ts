import { Logger } from '@nestjs/common';
import pg from 'pg';
import { CREDENTIALS_CHANNEL, RESTORED_CHANNEL, REVISIONS_CHANNEL } from './revisions.js';

/**
 * The receiving end of bumpRevisions' notifications: one dedicated connection LISTENing on
 * REVISIONS_CHANNEL, RESTORED_CHANNEL and CREDENTIALS_CHANNEL (a pooled connection would lose
 * the subscription when returned). It
 * reconnects a second after the connection drops; notifications sent meanwhile are lost, so
 * `onReconnect` tells the owner to look for what it missed.
 */
export class RevisionListener {
  private readonly logger = new Logger('revisions');
  private client?: pg.Client;
  private reconnectTimer?: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly databaseUrl: string,
    private readonly onNodes: (nodeIds: string[]) => void,
    private readonly onReconnect: () => void,
    /** The database was replaced by a restore (RESTORED_CHANNEL). */
    private readonly onRestored: () => void = () => undefined,
    /** These nodes' agent credentials changed or went (CREDENTIALS_CHANNEL). */
    private readonly onCredentials: (nodeIds: string[]) => void = () => undefined,
  ) {}

  async start(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.databaseUrl });
    client.on('notification', (message) => {
      const nodeIds = () => (message.payload ?? '').split(',').filter(Boolean);
      if (message.channel === RESTORED_CHANNEL) this.onRestored();
      else if (message.channel === CREDENTIALS_CHANNEL) this.onCredentials(nodeIds());
      else this.onNodes(nodeIds());
    });
    const retry = () => {
      if (this.closed || this.client !== client) return;
      this.client = undefined;
      this.reconnectTimer = setTimeout(() => void this.start().then(this.onReconnect), 1000);
      this.reconnectTimer.unref();
    };
    client.on('error', retry);
    client.on('end', retry);
    this.client = client;
    try {
      await client.connect();
      await client.query(`listen ${REVISIONS_CHANNEL}`);
      await client.query(`listen ${RESTORED_CHANNEL}`);
      // Last, and nothing after it on this connection: `warren backup restore` knows a panel is
      // running on the database by a connection whose last statement is this one.
      await client.query(`listen ${CREDENTIALS_CHANNEL}`);
    } catch (error) {
      this.logger.warn(`cannot listen for revision changes (${(error as Error).message}); retrying`);
      retry();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    await this.client?.end().catch(() => undefined);
  }
}
