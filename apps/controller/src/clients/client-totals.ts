import { Injectable } from '@nestjs/common';

/**
 * Totals of client-list filters, kept for a moment. Counting every matching row is ~90% of a
 * list request at 100,000 clients (the page itself is an index walk), and paging through a
 * list asks the same total again and again. A change to clients made through this controller
 * clears the totals at once, so its own answers are exact; a change made elsewhere (another
 * replica, a forced interface delete) shows in a total within TTL_MS. Concurrent requests for
 * the same total share one count.
 */
@Injectable()
export class ClientTotals {
  static readonly TTL_MS = 2_000;
  private static readonly MAX_ENTRIES = 1_000;
  private readonly entries = new Map<string, { expiresAt: number; total: Promise<number> }>();

  get(filter: object, count: () => Promise<number>): Promise<number> {
    const key = JSON.stringify(filter);
    const now = Date.now();
    const cached = this.entries.get(key);
    if (cached && cached.expiresAt > now) return cached.total;
    if (this.entries.size >= ClientTotals.MAX_ENTRIES) this.entries.clear();
    const total = count();
    const entry = { expiresAt: now + ClientTotals.TTL_MS, total };
    this.entries.set(key, entry);
    total.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    return total;
  }

  /** Call after a committed change to clients: every total is counted afresh. */
  changed(): void {
    this.entries.clear();
  }
}
