import { generateApiToken, hashSecret, tokenHint } from '#libs/tokens/api-token.js';
import type { TokenScopeView, TokenView, TokensRepository } from './tokens.repository.js';

/** An issued token: its view, and the token in the clear (returned once, never stored). */
export type IssuedApiToken = TokenView & { token: string };

/**
 * The one rule for issuing an API token, shared by `POST /api/tokens` and `warren token issue`:
 * a fresh `wrn_` token for the user, stored as its SHA-256 with a short hint, enabled at once.
 * The caller has validated `name` (1..64 characters, no control characters) and the scope
 * (an expiry in the future, known route groups).
 */
export async function issueApiToken(
  tokens: TokensRepository,
  userId: string,
  name: string,
  scope: TokenScopeView = { readOnly: false, expiresAt: null, routeGroups: null },
): Promise<IssuedApiToken> {
  const token = generateApiToken();
  const issued = await tokens.insert(userId, { name, hint: tokenHint(token), secretHash: hashSecret(token), ...scope });
  return { ...issued, token };
}
