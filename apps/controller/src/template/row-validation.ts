import type { Type } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { ApiError, badRequest } from '../http/api-error.js';
import { validationError } from '../http/validation.js';

/** An error of a row's own check, its field put under the row's path (`interfaces.2` + `listenPort`). */
export function atPath(error: ApiError, path: string): ApiError {
  const under = (field: string) => (field ? `${path}.${field}` : path);
  const failures = error.failures?.map((failure) => ({ ...failure, field: under(failure.field) }));
  return new ApiError(error.status, error.message, under(error.field), error.headers, failures);
}

/**
 * A template row checked by the DTO class the row's own route validates with, under the same
 * options as StrictValidationPipe (unknown fields refused, no type conversion).
 */
export async function validRow<T extends object>(
  dto: Type<T>,
  plain: Record<string, unknown>,
  path: string,
): Promise<T> {
  const instance = plainToInstance(dto, plain, { enableImplicitConversion: false });
  const errors = await validate(instance, {
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    validationError: { target: false, value: true },
  });
  if (errors.length > 0) throw atPath(validationError(errors), path);
  return instance;
}

/** A row's reference field (`node`, `interface`): a non-empty string. */
export function nameField(row: Record<string, unknown>, field: string, path: string): string {
  const value = row[field];
  if (value === undefined) throw badRequest(`${field} is required`, `${path}.${field}`);
  if (typeof value !== 'string' || value.length === 0 || value.length > 128)
    throw badRequest(`${field} must be a name`, `${path}.${field}`);
  return value;
}

/** The row without the template's own fields (the rest goes to the route's DTO). */
export function without(row: Record<string, unknown>, ...fields: string[]): Record<string, unknown> {
  const rest = { ...row };
  for (const field of fields) delete rest[field];
  return rest;
}

/** Runs a service's check, its refusal's field put under the row's path. */
export async function underPath<T>(path: string, work: () => Promise<T> | T): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ApiError) throw atPath(error, path);
    throw error;
  }
}
