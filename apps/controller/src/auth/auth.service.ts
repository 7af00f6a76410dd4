import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { hashSecret, isWellFormedApiToken, API_TOKEN_PREFIX } from '#libs/tokens/api-token.js';
import { badRequest, forbidden, notFound, unauthorized } from '../http/api-error.js';
import { WARREN_CONFIG } from '../runtime.js';
import type { WarrenConfig } from '../config/config.js';
import { CredentialsRepository } from './credentials.repository.js';
import { LoginThrottleService } from './login-throttle.service.js';
import { TotpService, wrongCode } from './totp/totp.service.js';
import { DECOY_HASH, hashPassword, verifyPassword } from './password.js';
import type { Principal } from './principal.js';
import { UsersRepository, type SessionView } from './users.repository.js';
import { AuthNotices } from './auth-notices.js';

export interface SignedIn {
  token: string;
  expiresAt: Date;
  user: { id: string; username: string; role: string };
  /** Signed in with a temporary password: only changing it (or signing out) is let through. */
  mustChangePassword: boolean;
}

/** Where a sign-in comes from, kept with its session for the user's list of sessions. */
export interface SignInFrom {
  ip: string;
  userAgent?: string;
}

/** The password was right, two-factor sign-in is on and no code came: no session yet. */
export interface NeedCode {
  needCode: true;
}

/** Password sign-in, sessions, and turning a presented credential into a Principal. */
@Injectable()
export class AuthService {
  private readonly logger = new Logger('auth');
  constructor(
    @Inject(WARREN_CONFIG) private readonly config: WarrenConfig,
    private readonly throttle: LoginThrottleService,
    private readonly users: UsersRepository,
    private readonly credentials: CredentialsRepository,
    private readonly totp: TotpService,
    private readonly notices: AuthNotices,
  ) {}

  async login(
    username: string,
    password: string,
    { ip, userAgent }: SignInFrom,
    code?: string,
  ): Promise<SignedIn | NeedCode> {
    const keys = LoginThrottleService.keys(ip, username);
    await this.throttle.begin(keys);
    const user = await this.users.findByUsername(username);
    const valid = await verifyPassword(password, user?.passwordHash ?? DECOY_HASH, user?.username);
    if (!user || !valid) {
      // An operator's signal of guessing (the throttle then stops it); the username is quoted, never the password.
      this.logger.warn(`sign-in refused for ${JSON.stringify(username.slice(0, 64))} from ${ip}`);
      throw unauthorized('invalid username or password');
    }
    // Two-factor sign-in (totp/totp.service.ts): a wrong code stays counted as a failed sign-in.
    const second = await this.totp.signIn(user.id, code);
    if (second === 'missing') {
      await this.throttle.givenBack(keys);
      return { needCode: true };
    }
    if (second === 'wrong') {
      this.logger.warn(`sign-in of ${user.username} from ${ip} refused: wrong two-factor code`);
      throw wrongCode(401, 'the two-factor code is wrong or has been used');
    }
    await this.throttle.succeeded(keys);
    // Only after the right password: the answer tells nothing about an account to a guesser.
    if (!user.enabled) throw forbidden('this account is disabled: the owner can enable it again', 'username');
    this.logger.log(`${user.username} signed in from ${ip}`);
    const token = randomBytes(32).toString('base64url');
    const expiresAt = new Date(Date.now() + this.config.sessionTtlHours * 3600_000);
    await this.users.createSession(user.id, hashSecret(token), expiresAt, { address: ip, userAgent });
    await this.notices.signedIn({ userId: user.id, username: user.username }, ip);
    // Expired sessions are swept here rather than by a timer: sign-ins are rare and this is cheap.
    await this.users.deleteExpiredSessions(new Date());
    return {
      token,
      expiresAt,
      user: { id: user.id, username: user.username, role: user.role },
      mustChangePassword: user.mustChangePassword,
    };
  }

  /**
   * Changes the caller's own password. The current one is checked under the sign-in throttle
   * (a stolen session must not become a way to guess it unthrottled). Every session of the user
   * ends except the one making the change: whoever holds it has just shown the password. API
   * tokens stay; they are revoked one by one (docs/roles.md).
   */
  async changePassword(
    principal: Principal,
    currentPassword: string,
    newPassword: string,
    ip: string,
  ): Promise<number> {
    const keys = LoginThrottleService.keys(ip, principal.username);
    await this.throttle.begin(keys);
    const user = await this.users.findById(principal.userId);
    if (!user) throw unauthorized('invalid or expired credentials');
    if (!(await verifyPassword(currentPassword, user.passwordHash, user.username)))
      throw badRequest('the current password is wrong', 'currentPassword');
    await this.throttle.succeeded(keys);
    if (newPassword === currentPassword)
      throw badRequest('the new password must differ from the current one', 'newPassword');
    const keep = principal.via === 'session' ? principal.credentialId : undefined;
    const ended = await this.users.changePassword(user.id, await hashPassword(newPassword), keep);
    if (ended === null) throw unauthorized('invalid or expired credentials');
    await this.notices.passwordChanged({ userId: user.id, username: user.username }, 'self');
    return ended;
  }

  /** The caller's live sessions; `current` marks the one presented (none through an API token). */
  async sessions(principal: Principal): Promise<(SessionView & { current: boolean })[]> {
    const sessions = await this.users.sessionsOf(principal.userId);
    return sessions.map((session) => ({
      ...session,
      current: principal.via === 'session' && session.id === principal.credentialId,
    }));
  }

  /** Ends one of the caller's own sessions (the current one too: that is signing out). Another user's answers 404. */
  async endSession(principal: Principal, id: string): Promise<{ id: string; deleted: true }> {
    if (!(await this.users.deleteSessionOf(principal.userId, id))) throw notFound('session not found', 'id');
    return { id, deleted: true };
  }

  /** Ends every session of the caller but the one presented (all of them through an API token). */
  endOtherSessions(principal: Principal): Promise<number> {
    return this.users.deleteSessionsOf(
      principal.userId,
      principal.via === 'session' ? principal.credentialId : undefined,
    );
  }

  /** Ends the session presented. An API token is no session: it is revoked through /api/tokens, not here. */
  async logout(principal: Principal): Promise<void> {
    if (principal.via !== 'session')
      throw badRequest(
        'an API token is not a session: revoke it with PATCH /api/tokens/{id} {"enabled": false} or DELETE /api/tokens/{id}',
      );
    await this.users.deleteSession(principal.credentialId);
  }

  /**
   * One indexed look-up per request and no cache: disabling or deleting a token, or deleting
   * its user, must take effect on the very next request on every replica.
   */
  async authenticate(credential: string): Promise<Principal | undefined> {
    if (credential.startsWith(API_TOKEN_PREFIX)) {
      if (!isWellFormedApiToken(credential)) return undefined;
      const owner = await this.credentials.apiTokenOwner(hashSecret(credential));
      return owner && { ...owner, via: 'token' };
    }
    if (credential.length > 128) return undefined;
    const owner = await this.credentials.sessionOwner(hashSecret(credential));
    return owner && { ...owner, via: 'session' };
  }
}
