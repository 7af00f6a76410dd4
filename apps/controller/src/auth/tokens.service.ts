import { Inject, Injectable } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { notFound } from '../http/api-error.js';
import { ApiToken } from './api-token.entity.js';
import { issueApiToken } from './issue-token.js';

export interface TokenView {
  id: string;
  name: string;
  hint: string;
  enabled: boolean;
  owner: string;
  lastUsedAt: Date | null;
  createdAt: Date;
}

function view(token: ApiToken): TokenView {
  return {
    id: token.id,
    name: token.name,
    hint: token.hint,
    enabled: token.enabled,
    owner: token.user.username,
    lastUsedAt: token.lastUsedAt ?? null,
    createdAt: token.createdAt,
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** API tokens: issued once in the clear, stored as SHA-256, revocable at once. */
@Injectable()
export class TokensService {
  constructor(@Inject(MikroORM) private readonly orm: MikroORM) {}

  async list(): Promise<TokenView[]> {
    const tokens = await this.orm.em.fork().find(ApiToken, {}, { populate: ['user'], orderBy: { createdAt: 'desc' } });
    return tokens.map(view);
  }

  /** Returns the token in the clear: the only time it is ever shown. */
  async issue(userId: string, name: string): Promise<TokenView & { token: string }> {
    const { row, token } = await issueApiToken(this.orm.em.fork(), userId, name);
    return { ...view(row), token };
  }

  async update(id: string, changes: { name?: string; enabled?: boolean }): Promise<TokenView> {
    const em = this.orm.em.fork();
    const token = await this.find(em, id);
    if (changes.name !== undefined) token.name = changes.name;
    if (changes.enabled !== undefined) token.enabled = changes.enabled;
    await em.flush();
    return view(token);
  }

  async remove(id: string): Promise<{ id: string; deleted: true }> {
    const em = this.orm.em.fork();
    em.remove(await this.find(em, id));
    await em.flush();
    return { id, deleted: true };
  }

  private async find(em: ReturnType<MikroORM['em']['fork']>, id: string): Promise<ApiToken> {
    const token = UUID.test(id) ? await em.findOne(ApiToken, { id }, { populate: ['user'] }) : null;
    if (!token) throw notFound('token not found', 'id');
    return token;
  }
}
