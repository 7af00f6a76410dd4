import { Injectable } from '@nestjs/common';

/**
 * The time TOTP codes are checked at, in milliseconds since the epoch. A provider of its own so
 * that tests can set the panel's clock to a chosen moment and compute the code for it with the
 * same library (test/api/totp.spec.ts); the panel itself always reads the system clock.
 */
@Injectable()
export class TotpClock {
  now(): number {
    return Date.now();
  }
}
