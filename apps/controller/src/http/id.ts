import { Injectable, type PipeTransform } from '@nestjs/common';
import { notFound } from './api-error.js';

/** Every resource id the panel hands out is a UUID (any version: PostgreSQL's and Node's). */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isId(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

/**
 * The one id guard for path parameters: a value that cannot be an id names nothing, so it is a
 * 404 for `resource` before any query runs (PostgreSQL would refuse it as a uuid otherwise).
 * Use as `@Param('id', new IdPipe('client'))`.
 */
@Injectable()
export class IdPipe implements PipeTransform<string, string> {
  constructor(
    private readonly resource: string,
    private readonly field = 'id',
  ) {}

  transform(value: string): string {
    if (!isId(value)) throw notFound(`${this.resource} not found`, this.field);
    return value;
  }
}
