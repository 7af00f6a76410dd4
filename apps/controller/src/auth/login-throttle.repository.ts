import { Inject, Injectable } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';

/** How failures turn into lockouts (the numbers are the service's rule). */
export interface LockoutPolicy {
  firstLockoutMs: number;
  longestLockoutMs: number;
  forgetAfterMs: number;
}

/** One counter an attempt is counted against, with the failures it may have before lockouts start. */
export interface ThrottleKey {
  key: string;
  freeFailures: number;
}

/** An attempt either goes ahead (it is counted) or meets a lockout (it is not). */
export type AttemptCount = { allowed: true } | { allowed: false; lockedUntil: Date };

interface LockRow {
  locked_until: Date | null;
  locked: boolean;
}

/**
 * Sign-in attempt counts per key, shared by every replica. Attempts are counted before the
 * password is checked, with the keys' rows locked while the lockout is read and the count
 * raised: parallel attempts queue on the row, so the sixth of twelve concurrent wrong
 * passwords already finds the lockout the fifth one set. A right password gives its count back.
 */
@Injectable()
export class LoginThrottleRepository {
  constructor(@Inject(MikroORM) private readonly orm: MikroORM) {}

  async countAttempt(keys: readonly ThrottleKey[], policy: LockoutPolicy): Promise<AttemptCount> {
    // Rows are created and locked in key order, so concurrent attempts cannot deadlock.
    const sorted = [...keys].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const names = sorted.map((entry) => entry.key);
    return this.orm.em.fork().transactional(async (em) => {
      await em.execute(
        `insert into login_throttles (key, failures, locked_until, updated_at)
         values ${names.map(() => '(?, 0, null, now())').join(', ')}
         on conflict (key) do nothing`,
        names,
      );
      const rows = await em.execute<LockRow[]>(
        `select locked_until, coalesce(locked_until > now(), false) as locked
           from login_throttles where key in (${names.map(() => '?').join(', ')})
          order by key for update`,
        names,
      );
      const locks = rows.filter((row) => row.locked).map((row) => new Date(row.locked_until!).getTime());
      if (locks.length > 0) return { allowed: false, lockedUntil: new Date(Math.max(...locks)) };
      // Failures older than forgetAfterMs start the count again; past a key's free failures
      // every further one locks it, for twice as long as the one before, up to longestLockoutMs.
      await em.execute(
        `update login_throttles t set
           failures = case when t.updated_at < now() - (? * interval '1 millisecond') then 1 else t.failures + 1 end,
           locked_until = case
             when t.updated_at >= now() - (? * interval '1 millisecond') and t.failures + 1 > k.free
             then now() + least(? * power(2, t.failures - k.free), ?) * interval '1 millisecond'
             else null end,
           updated_at = now()
          from (values ${sorted.map(() => '(?, ?::integer)').join(', ')}) as k(key, free)
         where t.key = k.key`,
        [
          policy.forgetAfterMs,
          policy.forgetAfterMs,
          policy.firstLockoutMs,
          policy.longestLockoutMs,
          ...sorted.flatMap((entry) => [entry.key, entry.freeFailures]),
        ],
      );
      return { allowed: true };
    });
  }

  /**
   * Gives back an attempt that turned out right: the key's count loses it, and a lockout it
   * alone pushed the count into is lifted.
   */
  async refund(entry: ThrottleKey): Promise<void> {
    await this.orm.em.fork().execute(
      `update login_throttles set
         failures = greatest(failures - 1, 0),
         locked_until = case when failures - 1 <= ? then null else locked_until end
       where key = ?`,
      [entry.freeFailures, entry.key],
    );
  }

  async clear(key: string): Promise<void> {
    await this.orm.em.fork().execute('delete from login_throttles where key = ?', [key]);
  }
}
