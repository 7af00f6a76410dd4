import { Injectable } from '@nestjs/common';
import { tooManyRequests } from '../http/api-error.js';
import { LoginThrottleRepository, type LockoutPolicy, type ThrottleKey } from './login-throttle.repository.js';
import { throttleAddress } from './throttle-address.js';

const LOCKOUT: LockoutPolicy = {
  firstLockoutMs: 30_000,
  longestLockoutMs: 15 * 60_000,
  /** Failures older than this are forgotten, so an honest typo last week costs nothing today. */
  forgetAfterMs: 15 * 60_000,
};

/** Wrong passwords one address may try for one username before lockouts start. */
const FREE_FAILURES_PER_USERNAME = 5;
/**
 * Wrong passwords one address may try across all usernames: several people behind one NAT get
 * room for their typos, one address spraying many usernames does not get five tries on each.
 */
const FREE_FAILURES_PER_ADDRESS = 20;

/** Addresses whose current lockout's first refusal was recorded, at most (then the expired ones go). */
const RECORDED_LOCKOUTS_KEPT = 10_000;

/** The counters one sign-in attempt is counted against. */
export interface AttemptKeys {
  /** This username from this address: the lockout the owner meets only where the guessing happens. */
  pair: ThrottleKey;
  /** This address, whatever the username. */
  address: ThrottleKey;
}

/**
 * Sign-in throttling by username and address together, plus a cap per address: five free
 * failures for a username from one address (twenty from one address overall), then lockouts
 * that double from 30 s up to 15 min. Nothing is keyed by username alone, so guessing from one
 * address cannot lock the owner out everywhere; the cost is that guesses spread over many
 * addresses are limited per address (an IPv6 /64 counting as one). A lockout answers 429 with
 * Retry-After before any password check.
 */
@Injectable()
export class LoginThrottleService {
  /**
   * Per address: the latest end of a lockout whose first refusal the audit log has. A lockout's
   * further refusals are not recorded one by one (docs/audit.md, "Sign-ins"): someone hammering
   * a locked sign-in from many addresses would otherwise write an entry per request. Per
   * replica: each records a lockout's first refusal it meets.
   */
  private readonly recordedLockouts = new Map<string, number>();

  constructor(private readonly throttles: LoginThrottleRepository) {}

  static keys(ip: string, username: string): AttemptKeys {
    const address = throttleAddress(ip);
    return {
      // The address holds no space, so the first space ends it whatever the username holds.
      pair: { key: `pair:${address} ${username.toLowerCase()}`, freeFailures: FREE_FAILURES_PER_USERNAME },
      address: { key: `address:${address}`, freeFailures: FREE_FAILURES_PER_ADDRESS },
    };
  }

  /** Counts the attempt as a failure until it proves right (`succeeded`), or answers 429. */
  async begin(keys: AttemptKeys): Promise<void> {
    const counted = await this.throttles.countAttempt([keys.pair, keys.address], LOCKOUT);
    if (!counted.allowed) {
      const seconds = Math.max(1, Math.ceil((counted.lockedUntil.getTime() - Date.now()) / 1000));
      const refusal = tooManyRequests('too many failed sign-ins; try again later', seconds);
      refusal.unrecorded = !this.firstRefusal(keys.address.key, counted.lockedUntil.getTime());
      throw refusal;
    }
  }

  /** Whether this is the first refusal this replica meets of the address's current lockout. */
  private firstRefusal(address: string, lockedUntil: number): boolean {
    // A lockout ending no later than one already recorded is part of it (a username's and the
    // address's lockouts overlap); a later end is a new lockout, which took a failure (recorded).
    if (lockedUntil <= (this.recordedLockouts.get(address) ?? 0)) return false;
    if (this.recordedLockouts.size >= RECORDED_LOCKOUTS_KEPT) {
      const now = Date.now();
      for (const [key, until] of this.recordedLockouts) if (until <= now) this.recordedLockouts.delete(key);
      // Still full: many addresses locked at once; start over (each records one refusal more).
      if (this.recordedLockouts.size >= RECORDED_LOCKOUTS_KEPT) this.recordedLockouts.clear();
    }
    this.recordedLockouts.set(address, lockedUntil);
    return true;
  }

  /** The password was right: this username starts afresh from this address, and the address gets its attempt back. */
  async succeeded(keys: AttemptKeys): Promise<void> {
    await this.throttles.clear(keys.pair.key);
    await this.throttles.refund(keys.address);
  }

  /**
   * The password was right but the sign-in is not done (two-factor sign-in asks for a code): the
   * attempt is given back on both counters, and nothing is cleared, so wrong codes keep adding up.
   */
  async givenBack(keys: AttemptKeys): Promise<void> {
    await this.throttles.refund(keys.pair);
    await this.throttles.refund(keys.address);
  }
}
