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
 * token must not make, turn back on, switch off, rename or delete a token that can do more than
 * itself, or its scope would be one request away from gone. Null when it does not.
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
    // Re-enabling keeps naming `enabled`, the field asking for more, as it did before the rule
    // covered every change.
    await this.assertNoWider(principal, id, changes.enabled === true ? 'enabled' : 'id');
    const token = await this.tokens.update(reachOf(principal), id, changes);
    if (!token) throw notFound('token not found', 'id');
    return token;
  }

  async remove(principal: Principal, id: string): Promise<{ id: string; deleted: true }> {
    await this.assertNoWider(principal, id, 'id');
    if (!(await this.tokens.remove(reachOf(principal), id))) throw notFound('token not found', 'id');
    return { id, deleted: true };
  }

  /**
   * A request made with a token changes or deletes only tokens no wider than that token, whoever
   * owns them: otherwise a narrow token (a CI secret limited to `tokens`, expiring tonight) could
   * switch off, rename or delete its user's wide ones. A session is the user and reaches all of
   * their tokens. Out of reach is 404 before anything else, so a 403 tells nothing the caller's
   * own list does not. A token's scope never changes after issue, so the check cannot go stale.
   */
  private async assertNoWider(principal: Principal, id: string, field: string): Promise<void> {
    if (!principal.scope) return;
    const target = await this.tokens.find(reachOf(principal), id);
    if (!target) throw notFound('token not found', 'id');
    const wider = widerThan(target, principal.scope);
    if (wider) throw forbidden(`this token reaches further than the one making the request: ${wider.message}`, field);
  }
}
