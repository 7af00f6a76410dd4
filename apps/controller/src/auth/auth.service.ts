import { Inject, Injectable } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { randomBytes } from 'node:crypto';
import { hashSecret, isWellFormedApiToken, API_TOKEN_PREFIX } from '#libs/tokens/api-token.js';
import { unauthorized } from '../http/api-error.js';
import type { PreparedPool } from '../database/prepared-pool.js';
import { PREPARED_POOL, WARREN_CONFIG } from '../runtime.js';
import type { WarrenConfig } from '../config/config.js';
import { LoginThrottleService } from './login-throttle.service.js';
import { DECOY_HASH, verifyPassword } from './password.js';
import type { Principal } from './principal.js';
import { Session } from './session.entity.js';
import { User } from './user.entity.js';

interface CredentialRow {
  id: string;
  user_id: string;
  username: string;
  role: string;
}

export interface SignedIn {
  token: string;
  expiresAt: Date;
  user: { id: string; username: string; role: string };
}

/** Password sign-in, sessions, and turning a presented credential into a Principal. */
@Injectable()
export class AuthService {
  constructor(
    @Inject(MikroORM) private readonly orm: MikroORM,
    @Inject(WARREN_CONFIG) private readonly config: WarrenConfig,
    private readonly throttle: LoginThrottleService,
    @Inject(PREPARED_POOL) private readonly prepared: PreparedPool,
  ) {}

  async login(username: string, password: string, ip: string): Promise<SignedIn> {
    const keys = LoginThrottleService.keys(ip, username);
    await this.throttle.assertAllowed(keys);
    const em = this.orm.em.fork();
    const user = await em.findOne(User, { username });
    const valid = await verifyPassword(password, user?.passwordHash ?? DECOY_HASH);
    if (!user || !valid) {
      await this.throttle.recordFailure(keys);
      throw unauthorized('invalid username or password');
    }
    await this.throttle.clear(keys[1]);
    const token = randomBytes(32).toString('base64url');
    const expiresAt = new Date(Date.now() + this.config.sessionTtlHours * 3600_000);
    em.create(Session, { tokenHash: hashSecret(token), user, expiresAt });
    await em.flush();
    // Expired sessions are swept here rather than by a timer: sign-ins are rare and this is cheap.
    await em.nativeDelete(Session, { expiresAt: { $lt: new Date() } });
    return { token, expiresAt, user: { id: user.id, username: user.username, role: user.role } };
  }

  async logout(principal: Principal): Promise<void> {
    if (principal.via === 'session') await this.orm.em.fork().nativeDelete(Session, { id: principal.credentialId });
  }

  /**
   * One indexed look-up per request and no cache: disabling or deleting a token, or deleting
   * its user, must take effect on the very next request on every replica.
   */
  async authenticate(credential: string): Promise<Principal | undefined> {
    if (credential.startsWith(API_TOKEN_PREFIX)) {
      if (!isWellFormedApiToken(credential)) return undefined;
      const [row] = await this.prepared.query<CredentialRow & { stale: boolean }>(
        'auth_api_token',
        `select t.id, t.user_id, u.username, u.role,
                (t.last_used_at is null or t.last_used_at < now() - interval '60 seconds') as stale
           from api_tokens t join users u on u.id = t.user_id
          where t.secret_hash = $1 and t.enabled`,
        [hashSecret(credential)],
      );
      if (!row) return undefined;
      // lastUsedAt is kept to the minute: a write per request would double the cost of every call.
      if (row.stale) await this.prepared.query('auth_token_used', 'update api_tokens set last_used_at = now() where id = $1', [row.id]);
      return { userId: row.user_id, username: row.username, role: row.role as Principal['role'], via: 'token', credentialId: row.id };
    }
    if (credential.length > 128) return undefined;
    const [row] = await this.prepared.query<CredentialRow>(
      'auth_session',
      `select s.id, s.user_id, u.username, u.role
         from sessions s join users u on u.id = s.user_id
        where s.token_hash = $1 and s.expires_at > now()`,
      [hashSecret(credential)],
    );
    if (!row) return undefined;
    return { userId: row.user_id, username: row.username, role: row.role as Principal['role'], via: 'session', credentialId: row.id };
  }
}
