import type { EntityManager } from '@mikro-orm/postgresql';
import { generateApiToken, hashSecret, tokenHint } from '#libs/tokens/api-token.js';
import { ApiToken } from './api-token.entity.js';
import { User } from './user.entity.js';

export interface IssuedApiToken {
  row: ApiToken;
  /** The token in the clear: returned once, never stored. */
  token: string;
}

/**
 * The one rule for issuing an API token, shared by `POST /api/tokens` and `warren token issue`:
 * a fresh `wrn_` token for the user, stored as its SHA-256 with a short hint, enabled at once.
 * The caller has validated `name` (1..64 characters, no control characters).
 */
export async function issueApiToken(em: EntityManager, userId: string, name: string): Promise<IssuedApiToken> {
  const user = await em.findOneOrFail(User, { id: userId });
  const token = generateApiToken();
  const row = em.create(ApiToken, { name, hint: tokenHint(token), secretHash: hashSecret(token), user, enabled: true });
  await em.flush();
  return { row, token };
}

/** The account the command line acts for: the first owner (created on the panel's first start). */
export async function findOwner(em: EntityManager): Promise<User | null> {
  return em.findOne(User, { role: 'owner' }, { orderBy: { createdAt: 'asc' } });
}
