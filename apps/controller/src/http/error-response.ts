import { HttpException } from '@nestjs/common';
import {
  NotFoundError,
  UniqueConstraintViolationException,
  ForeignKeyConstraintViolationException,
} from '@mikro-orm/core';
import type { ApiErrorBody } from '#libs/contracts/api-error.js';
import { databaseUnreachable } from './database-unreachable.js';
import { ApiError } from './api-error.js';

/** What a request that met the database away answers (503): the same process serves again once it is back. */
export const DATABASE_UNREACHABLE =
  'the database cannot be reached (stopped, restarting or unreachable); try again shortly';
/** Seconds a client is asked to wait before trying again: about what a PostgreSQL restart takes. */
const DATABASE_RETRY_AFTER_S = 5;

export interface ErrorResponse {
  status: number;
  body: ApiErrorBody;
  headers: Record<string, string>;
  /** True when the cause is a defect, not the caller's input: it is logged, never shown. */
  unexpected: boolean;
}

const MESSAGES_BY_STATUS: Record<number, string> = {
  400: 'bad request',
  401: 'authentication required',
  403: 'not allowed',
  404: 'not found',
  405: 'method not allowed',
  409: 'conflict',
  413: 'request body too large',
  415: 'unsupported content type',
  429: 'too many requests',
};

/** Fastify's own failures before a handler runs (body parsing, limits), by error code. */
const FASTIFY_ERRORS: Record<string, [number, string]> = {
  FST_ERR_CTP_INVALID_JSON_BODY: [400, 'malformed JSON body'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'empty JSON body'],
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'request body too large (limit 1 MiB)'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'unsupported content type; send application/json'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'content length does not match the body'],
  FST_ERR_BAD_URL: [400, 'malformed URL'],
  // 400, not fastify's 414: every route declares 400, and the parameter is input like any other.
  FST_ERR_MAX_PARAM_LENGTH: [400, 'path parameter too long'],
};

function reply(status: number, error: string, field = '', headers: Record<string, string> = {}): ErrorResponse {
  return { status, body: { error, field }, headers, unexpected: false };
}

/** Turns anything thrown while serving a request into the `{error, field}` answer. */
export function toErrorResponse(error: unknown): ErrorResponse {
  // Nest wraps Fastify's own errors (body parsing, limits) in an HttpException with the original as cause.
  if (
    error instanceof HttpException &&
    error.cause &&
    typeof (error.cause as { statusCode?: unknown }).statusCode === 'number'
  ) {
    error = error.cause;
  }
  if (error instanceof ApiError) {
    const answer = reply(error.status, error.message, error.field, error.headers);
    const errors = error.fieldErrors();
    if (errors.length) answer.body.errors = errors;
    if (error.ceiling) {
      answer.body.ceiling = error.ceiling.name;
      answer.body.remaining = error.ceiling.remaining;
    }
    return answer;
  }
  if (error instanceof HttpException) {
    const status = error.getStatus();
    if (status < 500) return reply(status, MESSAGES_BY_STATUS[status] ?? 'request refused');
  }
  if (error instanceof NotFoundError) return reply(404, 'not found');
  if (error instanceof UniqueConstraintViolationException) return reply(409, 'already exists');
  if (error instanceof ForeignKeyConstraintViolationException) return reply(409, 'still referenced by other records');
  const candidate = error as { code?: unknown; statusCode?: unknown } | null;
  if (candidate && typeof candidate.code === 'string' && FASTIFY_ERRORS[candidate.code]) {
    const [status, message] = FASTIFY_ERRORS[candidate.code];
    return reply(status, message);
  }
  if (error instanceof SyntaxError && candidate?.statusCode === 400) return reply(400, 'malformed JSON body');
  if (databaseUnreachable(error))
    return reply(503, DATABASE_UNREACHABLE, '', { 'Retry-After': String(DATABASE_RETRY_AFTER_S) });
  if (
    candidate &&
    typeof candidate.statusCode === 'number' &&
    candidate.statusCode >= 400 &&
    candidate.statusCode < 500
  ) {
    return reply(candidate.statusCode, MESSAGES_BY_STATUS[candidate.statusCode] ?? 'request refused');
  }
  return { status: 500, body: { error: 'internal error', field: '' }, headers: {}, unexpected: true };
}
