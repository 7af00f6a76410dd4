import { Injectable, Logger, type BeforeApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { PanelMetrics } from '../metrics/panel-metrics.js';
import { SystemHistoryRepository } from './history.repository.js';
import type { PendingSample } from './sample-rows.js';

/** How often buffered samples are written: one INSERT per interval, whatever the number of agents. */
export const FLUSH_EVERY_MS = 2000;
/** Held while the database is away (a few minutes of 1,000 agents); the oldest go first beyond it. */
const MAX_BUFFERED = 200_000;

/**
 * Buffers raw samples and writes them in one multi-row INSERT every 2 s. 200 agents each
 * sending a sample every 2 s would otherwise be 100 INSERT round trips a second; batched it
 * is one. A failed write keeps the batch for the next flush, so a database restart loses
 * nothing but what exceeds the cap. Shutdown writes what is left.
 */
@Injectable()
export class SampleWriter implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('system');
  private buffer: PendingSample[] = [];
  private timer?: NodeJS.Timeout;
  private flushing?: Promise<void>;
  private failing = false;

  constructor(
    private readonly store: SystemHistoryRepository,
    private readonly metrics: PanelMetrics,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.flush(), FLUSH_EVERY_MS);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  add(sample: PendingSample): void {
    this.buffer.push(sample);
    if (this.buffer.length > MAX_BUFFERED) this.buffer.splice(0, this.buffer.length - MAX_BUFFERED);
  }

  /** Samples of one source not written yet (history reads add them, so the newest points are there). */
  pending(source: string): PendingSample[] {
    return this.buffer.filter((sample) => sample.source === source);
  }

  /** Writes everything buffered so far; resolves when it is stored (or the write failed and is kept). */
  async flush(): Promise<void> {
    // One write at a time; a flush asked for during one runs after it, so its caller sees its own samples stored.
    while (this.flushing) await this.flushing;
    if (this.buffer.length === 0) return;
    const batch = this.buffer;
    this.buffer = [];
    this.flushing = this.write(batch).finally(() => {
      this.flushing = undefined;
    });
    await this.flushing;
  }

  private async write(batch: PendingSample[]): Promise<void> {
    let kept: PendingSample[] = [];
    let failure: unknown;
    try {
      await this.store.insertRaw(batch);
    } catch (error) {
      failure = error;
      kept = refusesRows(error) ? await this.writeEachSource(batch) : batch;
    }
    this.metrics.historyWritten.inc(batch.length - kept.length);
    this.metrics.historyBuffered.set(this.buffer.length + kept.length);
    if (kept.length === 0) {
      if (this.failing) this.logger.log('system samples are being stored again');
      this.failing = false;
      return;
    }
    // Put them back in front of what arrived meanwhile, keeping time order.
    this.buffer = [...kept, ...this.buffer];
    if (this.buffer.length > MAX_BUFFERED) this.buffer.splice(0, this.buffer.length - MAX_BUFFERED);
    if (!this.failing)
      this.logger.warn(`storing system samples failed, keeping them for the next try: ${(failure as Error).message}`);
    this.failing = true;
  }

  /**
   * The shared INSERT was refused for a row's values: each source is written on its own, and a
   * source refused again row by row, so one bad row costs only itself (dropped, and said so with
   * its source) and never the history of every other node or of the controller. Returns the rows
   * to try again (the database went away meanwhile).
   */
  private async writeEachSource(batch: readonly PendingSample[]): Promise<PendingSample[]> {
    const kept: PendingSample[] = [];
    const bySource = new Map<string, PendingSample[]>();
    for (const sample of batch) {
      const rows = bySource.get(sample.source);
      if (rows) rows.push(sample);
      else bySource.set(sample.source, [sample]);
    }
    for (const rows of bySource.values()) {
      const refused = await this.insertOrKeep(rows, kept);
      if (!refused) continue;
      for (const row of rows) {
        if (await this.insertOrKeep([row], kept)) {
          this.logger.warn(
            `a system sample of ${row.source} at ${new Date(row.at).toISOString()} was refused by the database and dropped: ${refused.message}`,
          );
        }
      }
    }
    return kept;
  }

  /** Inserts rows; the database's refusal of their values is returned, any other failure keeps them. */
  private async insertOrKeep(rows: PendingSample[], kept: PendingSample[]): Promise<Error | undefined> {
    try {
      await this.store.insertRaw(rows);
      return undefined;
    } catch (error) {
      if (refusesRows(error)) return error as Error;
      kept.push(...rows);
      return undefined;
    }
  }
}

/** PostgreSQL refused the values themselves (class 22 data exception, 23 constraint), not the connection. */
function refusesRows(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^2[23]/.test(code);
}
