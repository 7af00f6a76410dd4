import { Inject, Injectable } from '@nestjs/common';
import type { PreparedPool } from '../database/prepared-pool.js';
import { PREPARED_POOL } from '../runtime.js';
import type { RouteGroup } from '#libs/contracts/route-groups.js';
import type { UserRole } from '#libs/contracts/user-roles.js';
import type { TokenScope } from './principal.js';

/** Whose a presented credential is, when it is valid. */
export interface CredentialOwner {
  /** The session or API token id. */
  credentialId: string;
  userId: string;
  username: string;
  role: UserRole;
  /** A temporary password the owner set is still in use: the guard lets only its change through. */
  mustChangePassword: boolean;
}

interface CredentialRow {
  id: string;
  user_id: string;
  username: string;
  role: UserRole;
  must_change_password: boolean;
  /** The last use was recorded over a minute ago (or never). */
  stale: boolean;
}

const owner = (row: CredentialRow): CredentialOwner => ({
  credentialId: row.id,
  userId: row.user_id,
  username: row.username,
  role: row.role,
  mustChangePassword: row.must_change_password,
});

/**
 * The look-up every authenticated request runs. Raw SQL on purpose: these are named prepared
 * statements on their own small pool, parsed and planned once per connection, which more than
 * doubles requests per second against the ORM's path (docs/benchmarks.md, the `GET /api/auth/me`
 * floor). The API token table belongs to tokens/, which depends on auth/; reading it here by
 * name keeps that dependency one way.
 *
 * A disabled user's credentials are refused here, in the same look-up: disabling takes effect on
 * the very next request, on every replica, at no extra cost.
 */
@Injectable()
export class CredentialsRepository {
  constructor(@Inject(PREPARED_POOL) private readonly prepared: PreparedPool) {}

  /** A live session's owner; records it as seen when it last was over a minute ago. */
  async sessionOwner(tokenHash: string): Promise<CredentialOwner | undefined> {
    const [row] = await this.prepared.query<CredentialRow>(
      'auth_session',
      `select s.id, s.user_id, u.username, u.role, u.must_change_password,
              (s.last_seen_at is null or s.last_seen_at < now() - interval '60 seconds') as stale
         from sessions s join users u on u.id = s.user_id
        where s.token_hash = $1 and s.expires_at > now() and u.enabled`,
      [tokenHash],
    );
    if (!row) return undefined;
    if (row.stale)
      await this.prepared.query('auth_session_seen', 'update sessions set last_seen_at = now() where id = $1', [
        row.id,
      ]);
    return owner(row);
  }

  /**
   * An enabled, unexpired API token's owner and scope; records the use when the last one is over
   * a minute old. The join reads the user's row on every request, so whatever the user's state
   * says about them holds for their tokens at once (a deleted user's tokens are gone by cascade).
   */
  async apiTokenOwner(secretHash: string): Promise<(CredentialOwner & { scope: TokenScope }) | undefined> {
    const [row] = await this.prepared.query<CredentialRow & TokenScopeRow & { stale: boolean }>(
      'auth_api_token',
      `select t.id, t.user_id, u.username, u.role, u.must_change_password, t.read_only, t.expires_at, t.route_groups,
              (t.last_used_at is null or t.last_used_at < now() - interval '60 seconds') as stale
         from api_tokens t join users u on u.id = t.user_id
        where t.secret_hash = $1 and t.enabled and u.enabled and (t.expires_at is null or t.expires_at > now())`,
      [secretHash],
    );
    if (!row) return undefined;
    // lastUsedAt is kept to the minute: a write per request would double the cost of every call.
    if (row.stale)
      await this.prepared.query('auth_token_used', 'update api_tokens set last_used_at = now() where id = $1', [
        row.id,
      ]);
    return {
      ...owner(row),
      scope: { readOnly: row.read_only, routeGroups: row.route_groups, expiresAt: row.expires_at },
    };
  }
}

interface TokenScopeRow {
  read_only: boolean;
  expires_at: Date | null;
  route_groups: RouteGroup[] | null;
}
