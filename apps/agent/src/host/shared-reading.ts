import { performance } from 'node:perf_hooks';

/**
 * One reading serving whoever needs one begun after a given moment. A report round reads every
 * peer's counters for the counter spool, and the quota correction needs a reading begun after its
 * kernel reading (quotas/quota-host.ts): at 100,000 peers a reading is ~90 ms of CPU, so the two
 * share one when its start suits both (docs/agent-host.md, "Counters").
 *
 * Only a reading still in flight is shared: once it settles it is forgotten, so a failure is never
 * handed to a later round, and 100,000 readings are not kept alive between rounds for nobody.
 */
export class SharedReading<T> {
  private latest: { startedAt: number; promise: Promise<T> } | undefined;

  constructor(private readonly read: () => Promise<T>) {}

  /**
   * A reading begun at or after `since` (performance.now()): the one in flight when it began then,
   * or a new one, which is then the one others may share.
   */
  since(since: number): Promise<T> {
    const latest = this.latest;
    if (latest && latest.startedAt >= since) return latest.promise;
    const startedAt = performance.now();
    const promise = this.read();
    const entry = { startedAt, promise };
    this.latest = entry;
    const forget = () => {
      if (this.latest === entry) this.latest = undefined;
    };
    promise.then(forget, forget);
    return promise;
  }
}
