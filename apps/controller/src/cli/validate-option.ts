import type { Type } from '@nestjs/common';
import { ApiError } from '../http/api-error.js';
import { StrictValidationPipe } from '../http/validation.js';
import { UsageError } from './usage.js';

/**
 * A command-line value checked by the API's own rule: the route's DTO and the validation pipe,
 * so the command and the route cannot disagree. A refusal is a usage error naming the option
 * (`option`, or per DTO field when the body gathers several options).
 */
export async function validateOption<T extends object>(
  metatype: Type<T>,
  body: T,
  options: string | Record<string, string>,
): Promise<T> {
  try {
    return (await new StrictValidationPipe().transform(body, { type: 'body', metatype })) as T;
  } catch (error) {
    if (error instanceof ApiError) {
      const option = typeof options === 'string' ? options : (options[error.field] ?? `--${error.field}`);
      // The DTO's messages name its field ('"newPassword" needs…'); the person typed an option.
      const named = `"${error.field}" `;
      const message =
        error.field && error.message.startsWith(named)
          ? `${option} ${error.message.slice(named.length)}`
          : `${option}: ${error.message}`;
      throw new UsageError(message);
    }
    throw error;
  }
}
