import { ValidationPipe, type ArgumentMetadata, type ValidationError } from '@nestjs/common';
import { badRequest, type ApiError } from './api-error.js';

const TYPE_RULES = new Set([
  'isString', 'isInt', 'isNumber', 'isBoolean', 'isArray', 'isObject', 'isDateString', 'isIn', 'isEnum', 'isUUID', 'nestedValidation',
]);

/** The first failure of a (possibly nested) validation result, with its dotted path. */
function firstFailure(errors: ValidationError[], parent = ''): { field: string; message: string } | undefined {
  for (const error of errors) {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const constraints = error.constraints ?? {};
    if (constraints.whitelistValidation) return { field, message: `unknown field "${field}"` };
    // A wrong type explains itself better than the length or range rules that then also fail.
    const typeRule = Object.keys(constraints).find((rule) => TYPE_RULES.has(rule));
    const first = constraints[typeRule ?? ''] ?? Object.values(constraints)[0];
    if (first) return { field, message: first };
    const nested = firstFailure(error.children ?? [], field);
    if (nested) return nested;
  }
  return undefined;
}

export function validationError(errors: ValidationError[]): ApiError {
  const failure = firstFailure(errors);
  return failure ? badRequest(failure.message, failure.field ?? '') : badRequest('invalid request');
}

/**
 * Validates every DTO: unknown fields are refused (not silently dropped), types are converted
 * only where a DTO says so, and the first failure names its field as a path like `items.2.name`.
 */
export class StrictValidationPipe extends ValidationPipe {
  constructor() {
    super({
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      transform: true,
      transformOptions: { enableImplicitConversion: false },
      validationError: { target: false, value: false },
      exceptionFactory: validationError,
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const isDto = metadata.metatype && !([String, Number, Boolean, Array, Object] as unknown[]).includes(metadata.metatype);
    if (isDto && metadata.type === 'body' && (value === null || typeof value !== 'object' || Array.isArray(value))) {
      throw badRequest('request body must be a JSON object');
    }
    if (isDto && metadata.type === 'query' && (value === null || typeof value !== 'object')) value = {};
    return super.transform(value, metadata);
  }
}
