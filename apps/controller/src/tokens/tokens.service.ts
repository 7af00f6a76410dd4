import { Injectable } from '@nestjs/common';
import { notFound } from '../http/api-error.js';
import { issueApiToken, type IssuedApiToken } from './issue-token.js';
import { TokensRepository, type TokenView } from './tokens.repository.js';

/** API tokens: issued once in the clear, stored as SHA-256, revocable at once. */
@Injectable()
export class TokensService {
  constructor(private readonly tokens: TokensRepository) {}

  list(): Promise<TokenView[]> {
    return this.tokens.list();
  }

  /** Returns the token in the clear: the only time it is ever shown. */
  issue(userId: string, name: string): Promise<IssuedApiToken> {
    return issueApiToken(this.tokens, userId, name);
  }

  async update(id: string, changes: { name?: string; enabled?: boolean }): Promise<TokenView> {
    const token = await this.tokens.update(id, changes);
    if (!token) throw notFound('token not found', 'id');
    return token;
  }

  async remove(id: string): Promise<{ id: string; deleted: true }> {
    if (!(await this.tokens.remove(id))) throw notFound('token not found', 'id');
    return { id, deleted: true };
  }
}
