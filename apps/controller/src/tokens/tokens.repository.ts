import { Inject, Injectable } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { User } from '../auth/user.entity.js';
import type { RouteGroup } from '#libs/contracts/route-groups.js';
import { ApiToken } from './api-token.entity.js';

/** What a token may do beyond its user's role: only less (docs/roles.md, "Scoped tokens"). */
export interface TokenScopeView {
  readOnly: boolean;
  expiresAt: Date | null;
  routeGroups: RouteGroup[] | null;
}

export interface TokenView extends TokenScopeView {
  id: string;
  name: string;
  hint: string;
  enabled: boolean;
  owner: string;
  lastUsedAt: Date | null;
  expired: boolean;
  createdAt: Date;
}

/** Built field by field: the secret's hash must never reach a response. */
function view(token: ApiToken): TokenView {
  return {
    id: token.id,
    name: token.name,
    hint: token.hint,
    enabled: token.enabled,
    owner: token.user.username,
    lastUsedAt: token.lastUsedAt ?? null,
    readOnly: token.readOnly,
    expiresAt: token.expiresAt ?? null,
    expired: token.expiresAt != null && token.expiresAt.getTime() <= Date.now(),
    routeGroups: token.routeGroups ?? null,
    createdAt: token.createdAt,
  };
}

/** Which users' tokens a query may touch: one user's, or (no userId) everyone's. */
export interface TokenReach {
  userId?: string;
}

const within = (reach: TokenReach) => (reach.userId ? { user: reach.userId } : {});

/**
 * API token rows. Built by Nest for the panel and with `new` by the command line. The
 * per-request look-up by secret is auth's (credentials.repository.ts), on its prepared pool.
 */
@Injectable()
export class TokensRepository {
  constructor(@Inject(MikroORM) private readonly orm: MikroORM) {}

  async list(reach: TokenReach): Promise<TokenView[]> {
    const tokens = await this.orm.em
      .fork()
      .find(ApiToken, within(reach), { populate: ['user'], orderBy: { createdAt: 'desc' } });
    return tokens.map(view);
  }

  /** One token within reach, or null: out of reach reads as absent. */
  async find(reach: TokenReach, id: string): Promise<TokenView | null> {
    const token = await this.orm.em.fork().findOne(ApiToken, { id, ...within(reach) }, { populate: ['user'] });
    return token ? view(token) : null;
  }

  async insert(
    userId: string,
    token: { name: string; hint: string; secretHash: string } & TokenScopeView,
  ): Promise<TokenView> {
    const em = this.orm.em.fork();
    const user = await em.findOneOrFail(User, { id: userId });
    const row = em.create(ApiToken, { ...token, user, enabled: true });
    await em.flush();
    return view(row);
  }

  /** The token after the change, or null when there is no such token within reach. */
  async update(
    reach: TokenReach,
    id: string,
    changes: { name?: string; enabled?: boolean },
  ): Promise<TokenView | null> {
    const em = this.orm.em.fork();
    const token = await em.findOne(ApiToken, { id, ...within(reach) }, { populate: ['user'] });
    if (!token) return null;
    if (changes.name !== undefined) token.name = changes.name;
    if (changes.enabled !== undefined) token.enabled = changes.enabled;
    await em.flush();
    return view(token);
  }

  /** False when there was no such token within reach. */
  async remove(reach: TokenReach, id: string): Promise<boolean> {
    return (await this.orm.em.fork().nativeDelete(ApiToken, { id, ...within(reach) })) > 0;
  }
}
