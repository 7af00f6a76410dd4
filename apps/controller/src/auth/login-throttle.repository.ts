import { Inject, Injectable } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { LoginThrottle } from './login-throttle.entity.js';

/** How failures turn into lockouts (the numbers are the service's rule). */
export interface LockoutPolicy {
  freeFailures: number;
  firstLockoutMs: number;
  longestLockoutMs: number;
  forgetAfterMs: number;
}

/** Failed sign-in counts per key (`ip:…`, `user:…`), shared by every replica. */
@Injectable()
export class LoginThrottleRepository {
  constructor(@Inject(MikroORM) private readonly orm: MikroORM) {}

  /** The latest lockout end among these keys, or null when none is locked. */
  async lockedUntil(keys: readonly string[]): Promise<Date | null> {
    const rows = await this.orm.em.fork().find(LoginThrottle, { key: { $in: [...keys] } });
    const latest = Math.max(0, ...rows.map((row) => row.lockedUntil?.getTime() ?? 0));
    return latest > 0 ? new Date(latest) : null;
  }

  /**
   * Counts one failure for the key and sets its lockout. SQL rather than load-and-save:
   * concurrent failures must all count, so the count and the lockout are computed from the
   * stored row inside one upsert, which PostgreSQL serialises per key.
   */
  async recordFailure(key: string, policy: LockoutPolicy): Promise<void> {
    await this.orm.em.fork().execute(
      `insert into login_throttles (key, failures, locked_until, updated_at) values (?, 1, null, now())
       on conflict (key) do update set
         failures = case when login_throttles.updated_at < now() - (? * interval '1 millisecond') then 1
                         else login_throttles.failures + 1 end,
         locked_until = case
           when login_throttles.updated_at >= now() - (? * interval '1 millisecond')
                and login_throttles.failures + 1 > ?
           then now() + least(? * power(2, login_throttles.failures + 1 - ? - 1), ?) * interval '1 millisecond'
           else null end,
         updated_at = now()`,
      [key, policy.forgetAfterMs, policy.forgetAfterMs, policy.freeFailures, policy.firstLockoutMs, policy.freeFailures, policy.longestLockoutMs],
    );
  }

  async clear(key: string): Promise<void> {
    await this.orm.em.fork().nativeDelete(LoginThrottle, { key });
  }
}
