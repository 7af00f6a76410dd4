import { Inject, Injectable } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { tooManyRequests } from '../http/api-error.js';
import { LoginThrottle } from './login-throttle.entity.js';

const FREE_FAILURES = 5;
const FIRST_LOCKOUT_MS = 30_000;
const LONGEST_LOCKOUT_MS = 15 * 60_000;
/** Failures older than this are forgotten, so an honest typo last week costs nothing today. */
const FORGET_AFTER_MS = 15 * 60_000;

/**
 * Sign-in throttling per source IP and per username: five free failures, then lockouts that
 * double from 30 s up to 15 min. A lockout answers 429 with Retry-After before any password check.
 */
@Injectable()
export class LoginThrottleService {
  constructor(@Inject(MikroORM) private readonly orm: MikroORM) {}

  static keys(ip: string, username: string): string[] {
    return [`ip:${ip}`, `user:${username.toLowerCase()}`];
  }

  async assertAllowed(keys: string[]): Promise<void> {
    const rows = await this.orm.em.fork().find(LoginThrottle, { key: { $in: keys } });
    const now = Date.now();
    const lockedUntil = Math.max(0, ...rows.map((row) => row.lockedUntil?.getTime() ?? 0));
    if (lockedUntil > now) {
      throw tooManyRequests('too many failed sign-ins; try again later', Math.ceil((lockedUntil - now) / 1000));
    }
  }

  async recordFailure(keys: string[]): Promise<void> {
    const em = this.orm.em.fork();
    // One statement per key: concurrent failures must all count, so the increment happens in SQL.
    for (const key of keys) {
      await em.getConnection().execute(
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
        [key, FORGET_AFTER_MS, FORGET_AFTER_MS, FREE_FAILURES, FIRST_LOCKOUT_MS, FREE_FAILURES, LONGEST_LOCKOUT_MS],
      );
    }
  }

  async clear(key: string): Promise<void> {
    await this.orm.em.fork().nativeDelete(LoginThrottle, { key });
  }
}
