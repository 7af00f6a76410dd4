import { Injectable } from '@nestjs/common';
import type { Principal } from '../auth/principal.js';
import { notFound } from '../http/api-error.js';
import { issueApiToken, type IssuedApiToken } from './issue-token.js';
import { TokensRepository, type TokenView } from './tokens.repository.js';

/**
 * Whose tokens a caller sees and changes: the owner's reach is every user's, anyone else's only
 * their own. Another user's token answers 404 as if it did not exist: its id tells nothing.
 */
function reachOf(principal: Principal): { userId?: string } {
  return principal.role === 'owner' ? {} : { userId: principal.userId };
}

/** API tokens: issued once in the clear, stored as SHA-256, revocable at once. */
@Injectable()
export class TokensService {
  constructor(private readonly tokens: TokensRepository) {}

  list(principal: Principal): Promise<TokenView[]> {
    return this.tokens.list(reachOf(principal));
  }

  /** Returns the token in the clear: the only time it is ever shown. */
  issue(userId: string, name: string): Promise<IssuedApiToken> {
    return issueApiToken(this.tokens, userId, name);
  }

  async update(principal: Principal, id: string, changes: { name?: string; enabled?: boolean }): Promise<TokenView> {
    const token = await this.tokens.update(reachOf(principal), id, changes);
    if (!token) throw notFound('token not found', 'id');
    return token;
  }

  async remove(principal: Principal, id: string): Promise<{ id: string; deleted: true }> {
    if (!(await this.tokens.remove(reachOf(principal), id))) throw notFound('token not found', 'id');
    return { id, deleted: true };
  }
}
