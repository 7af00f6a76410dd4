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
  ) {
    super(message);
  }
}

export const badRequest = (message: string, field = '') => new ApiError(400, message, field);
export const unauthorized = (message = 'authentication required') => new ApiError(401, message);
export const forbidden = (message = 'not allowed', field = '') => new ApiError(403, message, field);
export const notFound = (message = 'not found', field = '') => new ApiError(404, message, field);
export const conflict = (message: string, field = '') => new ApiError(409, message, field);
export const tooManyRequests = (message: string, retryAfterSeconds: number) =>
  new ApiError(429, message, '', { 'Retry-After': String(retryAfterSeconds) });
