import type { ApiErrorBody } from '#libs/contracts/api-error.js';

/**
 * The code an audit entry keeps for a refusal or failure (docs/audit.md, "Error codes"): the
 * first failing field's own code as the answer gave it (`tooLarge`, `required`, `wrongCode`,
 * `ceiling`…), else one by the status answered. Stable across versions, like the answer's codes:
 * the web panel words it in the reader's language and keeps the English sentence for the rest.
 */
export const AUDIT_STATUS_CODES: Record<number, string> = {
  400: 'invalid',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'notFound',
  409: 'conflict',
  413: 'bodyTooLarge',
  415: 'mediaType',
  429: 'throttled',
  500: 'internal',
  503: 'unavailable',
  507: 'diskFull',
};

/** The CLI's outcomes (status 1): refused by the command's own checks, or failed. */
export const CLI_ERROR_CODES = { refused: 'commandRefused', failed: 'internal' } as const;

export function auditErrorCode(status: number, body: Pick<ApiErrorBody, 'errors'>): string {
  const first = body.errors?.[0]?.code;
  if (typeof first === 'string' && /^[A-Za-z]{1,32}$/.test(first)) return first;
  return AUDIT_STATUS_CODES[status] ?? (status >= 500 ? 'internal' : 'invalid');
}
