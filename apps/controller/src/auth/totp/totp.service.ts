import { Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { generateSecret, generateURI, verify } from 'otplib';
import { hashSecret } from '#libs/tokens/api-token.js';
import { ApiError, badRequest, conflict, notFound } from '../../http/api-error.js';
import { verifyPassword } from '../password.js';
import { UsersRepository } from '../users.repository.js';
import { AuthNotices } from '../auth-notices.js';
import { LoginThrottleService } from '../login-throttle.service.js';
import type { Principal } from '../principal.js';
import { TotpClock } from './totp-clock.js';
import { TotpRepository } from './totp.repository.js';

/** The name authenticator apps show beside the username. */
export const TOTP_ISSUER = 'Warren';
/** How many recovery codes turning 2FA on gives out. */
export const RECOVERY_CODE_COUNT = 10;
/**
 * Codes of the step before and after the current one are taken too (clocks drift, people type
 * slowly); RFC 6238 §5.2 suggests one step of leeway. Replay is refused by the step, not the window.
 */
const EPOCH_TOLERANCE_SECONDS = 30;

/**
 * A code that is not right (wrong, expired or spent): `field: "code"` with the stable code
 * `wrongCode`, which the web panel translates. 400 where a signed-in user sent it, 401 at sign-in.
 */
export function wrongCode(status: 400 | 401, message: string): ApiError {
  return new ApiError(status, message, 'code', {}, [{ field: 'code', code: 'wrongCode', message }]);
}

/** What a sign-in with the right password still needs from the second factor. */
export type SecondFactor = 'off' | 'missing' | 'passed' | 'wrong';

/** A recovery code as typed or pasted: case, spaces and dashes do not matter. */
function normalizeRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, '');
}

/** `abcde-fghij`: 50 random bits in base32 (no 0/1/8/9 to confuse with letters), easy to type. */
function newRecoveryCode(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  const text = [...randomBytes(10)].map((byte) => alphabet[byte & 31]).join('');
  return `${text.slice(0, 5)}-${text.slice(5)}`;
}

/**
 * Two-factor sign-in with TOTP (RFC 6238, through otplib): turning it on (start, then confirm
 * with a code, which gives out one-time recovery codes), off (with a code), checking the second
 * factor of a sign-in, and the owner's or the host's reset. The secret is shown once, at start.
 * A code's time step is taken once per user: the same code is not accepted twice, nor any code
 * of an earlier step. Kept apart from AuthService so the password sign-in stays as it was.
 */
@Injectable()
export class TotpService {
  private readonly logger = new Logger('auth');
  constructor(
    private readonly totp: TotpRepository,
    private readonly throttle: LoginThrottleService,
    private readonly clock: TotpClock,
    private readonly users: UsersRepository,
    private readonly notices: AuthNotices,
  ) {}

  async status(userId: string): Promise<{ enabled: boolean; pending: boolean; recoveryCodesLeft: number }> {
    const state = await this.totp.state(userId);
    if (!state) throw notFound('user not found');
    return {
      enabled: state.enabled,
      pending: !state.enabled && state.secret !== null,
      recoveryCodesLeft: state.enabled ? await this.totp.unusedRecoveryCodes(userId) : 0,
    };
  }

  /**
   * A new secret, waiting for a code to confirm it; replaces one that was never confirmed. Needs
   * the current password, checked under the sign-in throttle: a stolen session (or an unattended
   * browser) must not be able to bind its holder's phone as the account's second factor.
   */
  async start(principal: Principal, password: string, ip: string): Promise<{ secret: string; uri: string }> {
    const keys = LoginThrottleService.keys(ip, principal.username);
    await this.throttle.begin(keys);
    const user = await this.users.findById(principal.userId);
    if (!user) throw notFound('user not found');
    if (!(await verifyPassword(password, user.passwordHash, user.username)))
      throw badRequest('the password is wrong', 'password');
    await this.throttle.succeeded(keys);
    const secret = generateSecret();
    if (!(await this.totp.setPending(principal.userId, secret)))
      throw conflict('two-factor sign-in is on already; turn it off first');
    return { secret, uri: generateURI({ issuer: TOTP_ISSUER, label: principal.username, secret }) };
  }

  /** Turns 2FA on when `code` is right for the pending secret; returns the recovery codes, shown this once. */
  async confirm(principal: Principal, code: string): Promise<{ recoveryCodes: string[] }> {
    const state = await this.totp.state(principal.userId);
    if (state?.enabled) throw conflict('two-factor sign-in is on already');
    if (!state?.secret) throw conflict('start with POST /api/auth/totp/start');
    const step = await this.verifyTotp(state.secret, code, null);
    if (step === null) throw wrongCode(400, 'the code is wrong or has expired');
    const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
    const hashes = recoveryCodes.map((recovery) => hashSecret(normalizeRecoveryCode(recovery)));
    if (!(await this.totp.enable(principal.userId, state.secret, step, hashes)))
      throw conflict('two-factor sign-in changed meanwhile; start again');
    this.logger.log(`${principal.username} turned on two-factor sign-in`);
    await this.notices.twoFactorChanged(principal, true, 'self');
    return { recoveryCodes };
  }

  /**
   * Turns 2FA off: needs a current code or an unused recovery code, checked under the sign-in
   * throttle (a stolen session must not be a way to guess codes unthrottled).
   */
  async disable(principal: Principal, code: string, ip: string): Promise<void> {
    const keys = LoginThrottleService.keys(ip, principal.username);
    await this.throttle.begin(keys);
    const state = await this.totp.state(principal.userId);
    if (!state?.enabled) throw conflict('two-factor sign-in is off');
    if (!(await this.spendCode(state.userId, state.secret!, state.lastStep, code)))
      throw wrongCode(400, 'the code is wrong or has been used');
    await this.throttle.succeeded(keys);
    await this.totp.clear(principal.userId);
    this.logger.log(`${principal.username} turned off two-factor sign-in`);
    await this.notices.twoFactorChanged(principal, false, 'self');
  }

  /**
   * The second factor of a sign-in whose password was right. The caller counts the attempt in
   * the throttle and gives it back only on `passed` (or `off`): a wrong code is a failed sign-in.
   */
  async signIn(userId: string, code: string | undefined): Promise<SecondFactor> {
    const state = await this.totp.state(userId);
    if (!state?.enabled || !state.secret) return 'off';
    if (code === undefined || code === '') return 'missing';
    return (await this.spendCode(userId, state.secret, state.lastStep, code)) ? 'passed' : 'wrong';
  }

  /** The owner's `POST /api/admins/{id}/reset-2fa`: 2FA off, secret and recovery codes gone. */
  async reset(userId: string): Promise<void> {
    if (!(await this.totp.clear(userId))) throw notFound('user not found', 'id');
    this.logger.log(`two-factor sign-in of user ${userId} was reset`);
    const user = await this.users.findById(userId);
    await this.notices.twoFactorChanged({ userId, username: user?.username ?? userId }, false, 'owner');
  }

  /** A six-digit code is a TOTP code (its step taken once); anything else is tried as a recovery code. */
  private async spendCode(userId: string, secret: string, lastStep: number | null, code: string): Promise<boolean> {
    const digits = code.replace(/\s/g, '');
    if (/^\d{6}$/.test(digits)) {
      const step = await this.verifyTotp(secret, digits, lastStep);
      return step !== null && (await this.totp.takeStep(userId, step));
    }
    const recovery = normalizeRecoveryCode(code);
    if (!/^[a-z2-7]{10}$/.test(recovery)) return false;
    return this.totp.spendRecoveryCode(userId, hashSecret(recovery));
  }

  /** The time step `code` is right for at the clock's time, or null; steps up to `afterStep` never match. */
  private async verifyTotp(secret: string, code: string, afterStep: number | null): Promise<number | null> {
    if (!/^\d{6}$/.test(code)) return null;
    const result = await verify({
      secret,
      token: code,
      epoch: Math.floor(this.clock.now() / 1000),
      epochTolerance: EPOCH_TOLERANCE_SECONDS,
      ...(afterStep === null ? {} : { afterTimeStep: afterStep }),
    });
    // The functional API answers TOTP's and HOTP's results alike; only TOTP's has the time step.
    return result.valid && 'timeStep' in result ? result.timeStep : null;
  }
}
