import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { hashSecret, isWellFormedApiToken, API_TOKEN_PREFIX } from '#libs/tokens/api-token.js';
import { unauthorized } from '../http/api-error.js';
import { WARREN_CONFIG } from '../runtime.js';
import type { WarrenConfig } from '../config/config.js';
import { CredentialsRepository } from './credentials.repository.js';
import { LoginThrottleService } from './login-throttle.service.js';
import { DECOY_HASH, verifyPassword } from './password.js';
import type { Principal } from './principal.js';
import { UsersRepository } from './users.repository.js';

export interface SignedIn {
  token: string;
  expiresAt: Date;
  user: { id: string; username: string; role: string };
}

/** Password sign-in, sessions, and turning a presented credential into a Principal. */
@Injectable()
export class AuthService {
  constructor(
    @Inject(WARREN_CONFIG) private readonly config: WarrenConfig,
    private readonly throttle: LoginThrottleService,
    private readonly users: UsersRepository,
    private readonly credentials: CredentialsRepository,
  ) {}

  async login(username: string, password: string, ip: string): Promise<SignedIn> {
    const keys = LoginThrottleService.keys(ip, username);
    await this.throttle.assertAllowed(keys);
    const user = await this.users.findByUsername(username);
    const valid = await verifyPassword(password, user?.passwordHash ?? DECOY_HASH);
    if (!user || !valid) {
      await this.throttle.recordFailure(keys);
      throw unauthorized('invalid username or password');
    }
    await this.throttle.clear(keys[1]);
    const token = randomBytes(32).toString('base64url');
    const expiresAt = new Date(Date.now() + this.config.sessionTtlHours * 3600_000);
    await this.users.createSession(user.id, hashSecret(token), expiresAt);
    // Expired sessions are swept here rather than by a timer: sign-ins are rare and this is cheap.
    await this.users.deleteExpiredSessions(new Date());
    return { token, expiresAt, user: { id: user.id, username: user.username, role: user.role } };
  }

  async logout(principal: Principal): Promise<void> {
    if (principal.via === 'session') await this.users.deleteSession(principal.credentialId);
  }

  /**
   * One indexed look-up per request and no cache: disabling or deleting a token, or deleting
   * its user, must take effect on the very next request on every replica.
   */
  async authenticate(credential: string): Promise<Principal | undefined> {
    if (credential.startsWith(API_TOKEN_PREFIX)) {
      if (!isWellFormedApiToken(credential)) return undefined;
      const owner = await this.credentials.apiTokenOwner(hashSecret(credential));
      return owner && { userId: owner.userId, username: owner.username, role: owner.role, via: 'token', credentialId: owner.credentialId };
    }
    if (credential.length > 128) return undefined;
    const owner = await this.credentials.sessionOwner(hashSecret(credential));
    return owner && { userId: owner.userId, username: owner.username, role: owner.role, via: 'session', credentialId: owner.credentialId };
  }
}
