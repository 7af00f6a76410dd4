import type { FieldError } from '#libs/contracts/api-error.js';

/**
 * The error services throw. It carries the HTTP status by kind and the field at fault, so the
 * one exception filter can answer `{error, field}` without knowing where it came from.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly field = '',
    /** Extra response headers, e.g. Retry-After for 429. */
    readonly headers: Record<string, string> = {},
    /** Every failing field when there are several (validation); else the one `field` names. */
    readonly failures?: FieldError[],
    /** A reseller's ceiling that refused the request, and the room left under it. */
    readonly ceiling?: { name: string; remaining: number | string[] },
  ) {
    super(message);
  }

  /**
   * Set on a refusal the audit log does not record one by one (a sign-in throttle's repeated
   * refusals: docs/audit.md); only routes recorded before their answer honour it.
   */
  unrecorded = false;

  /** Every field at fault, each with its code and a sentence; empty when no field is. */
  fieldErrors(): FieldError[] {
    if (this.failures?.length) return this.failures;
    return this.field
      ? [{ field: this.field, code: CODE_BY_STATUS[this.status] ?? 'invalid', message: this.message }]
      : [];
  }
}

/** The code of a single field's refusal by a service, from its status. */
const CODE_BY_STATUS: Record<number, string> = { 403: 'forbidden', 404: 'notFound', 409: 'conflict' };

export const badRequest = (message: string, field = '', failures?: FieldError[]) =>
  new ApiError(400, message, field, {}, failures);
export const unauthorized = (message = 'authentication required') => new ApiError(401, message);
export const forbidden = (message = 'not allowed', field = '') => new ApiError(403, message, field);
export const notFound = (message = 'not found', field = '') => new ApiError(404, message, field);
export const conflict = (message: string, field = '') => new ApiError(409, message, field);
export const tooManyRequests = (message: string, retryAfterSeconds: number) =>
  new ApiError(429, message, '', { 'Retry-After': String(retryAfterSeconds) });

/**
 * A reseller's create or change would pass one of the ceilings the owner set: 403 naming the
 * request's field at fault, the ceiling and the room left under it (docs/operators.md, "Ceilings").
 */
export const ceilingExceeded = (message: string, field: string, ceiling: string, remaining: number | string[]) =>
  new ApiError(403, message, field, {}, [{ field, code: 'ceiling', message }], { name: ceiling, remaining });
