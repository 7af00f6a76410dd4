import { Injectable } from '@nestjs/common';
import type { Principal, TokenScope } from '../auth/principal.js';
import { badRequest, forbidden, notFound } from '../http/api-error.js';
import { issueApiToken, type IssuedApiToken } from './issue-token.js';
import { TokensRepository, type TokenScopeView, type TokenView } from './tokens.repository.js';

/**
 * Whose tokens a caller sees and changes: the owner's reach is every user's, anyone else's only
 * their own. Another user's token answers 404 as if it did not exist: its id tells nothing.
 */
function reachOf(principal: Principal): { userId?: string } {
  return principal.role === 'owner' ? {} : { userId: principal.userId };
}

/** A scope as a request asks for it: an absent field means no narrowing. */
export interface RequestedScope {
  readOnly?: boolean;
  expiresAt?: string | null;
  routeGroups?: TokenScopeView['routeGroups'];
}

/**
 * Where `scope` reaches beyond `limit` (the scope of the token making the request): a scoped
 * token must not make or turn back on a token that can do more than itself, or its scope would
 * be one request away from gone. Null when it does not.
 */
function widerThan(scope: TokenScopeView, limit: TokenScope): { field: string; message: string } | null {
  if (limit.readOnly && !scope.readOnly)
    return { field: 'readOnly', message: 'a read-only token may only reach read-only tokens' };
  if (limit.routeGroups && (!scope.routeGroups || scope.routeGroups.some((g) => !limit.routeGroups!.includes(g))))
    return {
      field: 'routeGroups',
      message: `a token limited to route groups may only reach tokens within them (${limit.routeGroups.join(', ')})`,
    };
  if (limit.expiresAt && (!scope.expiresAt || scope.expiresAt.getTime() > limit.expiresAt.getTime()))
    return {
      field: 'expiresAt',
      message: `a token that expires may only reach tokens that expire no later (${limit.expiresAt.toISOString()})`,
    };
  return null;
}

/** API tokens: issued once in the clear, stored as SHA-256, revocable at once, narrower than their user if asked. */
@Injectable()
export class TokensService {
  constructor(private readonly tokens: TokensRepository) {}

  list(principal: Principal): Promise<TokenView[]> {
    return this.tokens.list(reachOf(principal));
  }

  /** Returns the token in the clear: the only time it is ever shown. */
  issue(principal: Principal, name: string, requested: RequestedScope = {}): Promise<IssuedApiToken> {
    const expiresAt = requested.expiresAt ? new Date(requested.expiresAt) : null;
    if (expiresAt && expiresAt.getTime() <= Date.now())
      throw badRequest('expiresAt must be in the future', 'expiresAt');
    const scope: TokenScopeView = {
      readOnly: requested.readOnly ?? false,
      expiresAt,
      routeGroups: requested.routeGroups ? [...requested.routeGroups].sort() : null,
    };
    const wider = principal.scope && widerThan(scope, principal.scope);
    if (wider) throw forbidden(wider.message, wider.field);
    return issueApiToken(this.tokens, principal.userId, name, scope);
  }

  async update(principal: Principal, id: string, changes: { name?: string; enabled?: boolean }): Promise<TokenView> {
    if (changes.enabled === true && principal.scope) {
      const target = (await this.tokens.list(reachOf(principal))).find((token) => token.id === id);
      const wider = target && widerThan(target, principal.scope);
      if (wider) throw forbidden(wider.message, 'enabled');
    }
    const token = await this.tokens.update(reachOf(principal), id, changes);
    if (!token) throw notFound('token not found', 'id');
    return token;
  }

  async remove(principal: Principal, id: string): Promise<{ id: string; deleted: true }> {
    if (!(await this.tokens.remove(reachOf(principal), id))) throw notFound('token not found', 'id');
    return { id, deleted: true };
  }
}
