import { Inject, Injectable } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { User } from '../user.entity.js';
import { RecoveryCode } from './recovery-code.entity.js';

/** A user's two-factor state as the TOTP service needs it; the secret never leaves auth/totp. */
export interface TotpState {
  userId: string;
  username: string;
  secret: string | null;
  enabled: boolean;
  lastStep: number | null;
}

/**
 * Users' TOTP columns and their recovery codes. Every change that must happen once (a time step
 * taken, a recovery code spent) is one conditional update, so two requests racing with the same
 * code cannot both succeed. Built by Nest for the panel and with `new` by the command line.
 */
@Injectable()
export class TotpRepository {
  constructor(@Inject(MikroORM) private readonly orm: MikroORM) {}

  async state(userId: string): Promise<TotpState | null> {
    const user = await this.orm.em.fork().findOne(User, { id: userId });
    return (
      user && {
        userId: user.id,
        username: user.username,
        secret: user.totpSecret ?? null,
        enabled: user.totpEnabled,
        lastStep: user.totpLastStep ?? null,
      }
    );
  }

  async unusedRecoveryCodes(userId: string): Promise<number> {
    return this.orm.em.fork().count(RecoveryCode, { user: userId, usedAt: null });
  }

  /** Stores a new secret waiting for confirmation; false when 2FA is on already (or no such user). */
  async setPending(userId: string, secret: string): Promise<boolean> {
    const changed = await this.orm.em
      .fork()
      .nativeUpdate(User, { id: userId, totpEnabled: false }, { totpSecret: secret, totpLastStep: null });
    return changed > 0;
  }

  /**
   * Turns 2FA on with the pending secret, the confirming code's time step as the last one taken,
   * and fresh recovery codes (hashes) in place of any older ones. False when there was no pending
   * secret to turn on (2FA already on, or cleared meanwhile).
   */
  async enable(userId: string, secret: string, step: number, codeHashes: string[]): Promise<boolean> {
    return this.orm.em.fork().transactional(async (em) => {
      const changed = await em.nativeUpdate(
        User,
        { id: userId, totpEnabled: false, totpSecret: secret },
        { totpEnabled: true, totpLastStep: step },
      );
      if (changed === 0) return false;
      await em.nativeDelete(RecoveryCode, { user: userId });
      for (const codeHash of codeHashes) em.create(RecoveryCode, { user: userId, codeHash });
      await em.flush();
      return true;
    });
  }

  /** Records `step` as taken: false when it, or a later one, was taken already (a replay). */
  async takeStep(userId: string, step: number): Promise<boolean> {
    const changed = await this.orm.em
      .fork()
      .nativeUpdate(
        User,
        { id: userId, totpEnabled: true, $or: [{ totpLastStep: null }, { totpLastStep: { $lt: step } }] },
        { totpLastStep: step },
      );
    return changed > 0;
  }

  /** Spends an unused recovery code of the user: false when there is none with this hash. */
  async spendRecoveryCode(userId: string, codeHash: string): Promise<boolean> {
    const changed = await this.orm.em
      .fork()
      .nativeUpdate(RecoveryCode, { user: userId, codeHash, usedAt: null }, { usedAt: new Date() });
    return changed > 0;
  }

  /** Turns 2FA off and forgets the secret and the recovery codes; false when there is no such user. */
  async clear(userId: string): Promise<boolean> {
    return this.orm.em.fork().transactional(async (em) => {
      const changed = await em.nativeUpdate(
        User,
        { id: userId },
        { totpEnabled: false, totpSecret: null, totpLastStep: null },
      );
      await em.nativeDelete(RecoveryCode, { user: userId });
      return changed > 0;
    });
  }
}
