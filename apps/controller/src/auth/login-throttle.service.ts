import { Injectable } from '@nestjs/common';
import { tooManyRequests } from '../http/api-error.js';
import { LoginThrottleRepository, type LockoutPolicy } from './login-throttle.repository.js';

const LOCKOUT: LockoutPolicy = {
  freeFailures: 5,
  firstLockoutMs: 30_000,
  longestLockoutMs: 15 * 60_000,
  /** Failures older than this are forgotten, so an honest typo last week costs nothing today. */
  forgetAfterMs: 15 * 60_000,
};

/**
 * Sign-in throttling per source IP and per username: five free failures, then lockouts that
 * double from 30 s up to 15 min. A lockout answers 429 with Retry-After before any password check.
 */
@Injectable()
export class LoginThrottleService {
  constructor(private readonly throttles: LoginThrottleRepository) {}

  static keys(ip: string, username: string): string[] {
    return [`ip:${ip}`, `user:${username.toLowerCase()}`];
  }

  async assertAllowed(keys: string[]): Promise<void> {
    const lockedUntil = (await this.throttles.lockedUntil(keys))?.getTime() ?? 0;
    const now = Date.now();
    if (lockedUntil > now) {
      throw tooManyRequests('too many failed sign-ins; try again later', Math.ceil((lockedUntil - now) / 1000));
    }
  }

  async recordFailure(keys: string[]): Promise<void> {
    for (const key of keys) await this.throttles.recordFailure(key, LOCKOUT);
  }

  async clear(key: string): Promise<void> {
    await this.throttles.clear(key);
  }
}
