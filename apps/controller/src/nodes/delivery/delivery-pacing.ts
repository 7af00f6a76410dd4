/** The clock pacing reads and waits on; tests give a fake one to check the rule without timing it. */
export interface PacingClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

const realClock: PacingClock = {
  now: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * The pacing rule of DeliveryService: after a node's delivery that took T ms, its next one starts
 * no sooner than T ms after it ended, and never waits more than `maxRestMs`. Per node; a node
 * that no longer exists is forgotten.
 */
export class DeliveryPacing {
  /** Per node, when its last delivery ended and how long it took (clock ms). */
  private readonly lastRun = new Map<string, { endedAt: number; tookMs: number }>();

  constructor(
    private readonly maxRestMs: number,
    private readonly clock: PacingClock = realClock,
  ) {}

  /**
   * Waits until as long after the node's last delivery as that delivery took (unless `wait` is
   * false: shutting down); answers the time the next delivery starts, for `ended`.
   */
  async rest(nodeId: string, wait = true): Promise<number> {
    const last = this.lastRun.get(nodeId);
    if (last && wait) {
      const rest = last.endedAt + Math.min(last.tookMs, this.maxRestMs) - this.clock.now();
      if (rest > 0) await this.clock.sleep(rest);
    }
    return this.clock.now();
  }

  /** Records a delivery that began at `startedAt` (rest's answer) and ended now; `exists` false forgets the node. */
  ended(nodeId: string, startedAt: number, exists: boolean): void {
    const endedAt = this.clock.now();
    if (exists) this.lastRun.set(nodeId, { endedAt, tookMs: endedAt - startedAt });
    else this.lastRun.delete(nodeId);
  }
}
