import { ValidationPipe, type ArgumentMetadata, type Type, type ValidationError } from '@nestjs/common';
import { badRequest, type ApiError } from './api-error.js';
import { fieldFailures, readFailure } from './field-failures.js';

/** Every failing field, the first also as the contract's `{error, field}`. */
export function validationError(errors: ValidationError[]): ApiError {
  const failures = fieldFailures(errors);
  const [first] = failures;
  return first ? badRequest(first.message, first.field, failures) : badRequest('The request is not valid.');
}

/** Names every object answers to without having them: `toString`, `constructor`, `__proto__`… */
const OBJECT_PROTOTYPE_NAMES = new Set(Object.getOwnPropertyNames(Object.prototype));

/**
 * The path of the first key, at any depth, named like a property every object inherits; undefined
 * when there is none. class-transformer skips such keys when it builds a DTO (a function of the
 * prototype is never overwritten), so the whitelist never sees them and `?toString=1` or
 * `{"valueOf": 1}` would pass as if known; no DTO declares such a name, so each is unknown.
 * Recursion is safe: bodies are refused above MAX_JSON_DEPTH before they are parsed.
 */
function inheritedKey(value: unknown, path = ''): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const entries = Array.isArray(value)
    ? value.map((item, index) => [String(index), item] as const)
    : Object.entries(value);
  for (const [key, item] of entries) {
    const here = path ? `${path}.${key}` : key;
    if (!Array.isArray(value) && OBJECT_PROTOTYPE_NAMES.has(key)) return here;
    const found = inheritedKey(item, here);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Body DTOs a request may leave out entirely (see OptionalBody). */
const OPTIONAL_BODIES = new WeakSet<object>();

/**
 * A body DTO (every field optional) that a request may leave out: an absent body reads as `{}`.
 * For actions W-UI's clients post without a body (`POST /api/outbounds/reset`).
 */
export function OptionalBody(): ClassDecorator {
  return (target) => {
    OPTIONAL_BODIES.add(target);
  };
}

/**
 * Validates every DTO: unknown fields are refused (not silently dropped), types are converted
 * only where a DTO says so, and every failure names its field as a path like `items.2.name`.
 */
export class StrictValidationPipe extends ValidationPipe {
  constructor() {
    super({
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      transform: true,
      transformOptions: { enableImplicitConversion: false },
      validationError: { target: false, value: true },
      exceptionFactory: validationError,
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const isDto =
      metadata.metatype && !([String, Number, Boolean, Array, Object] as unknown[]).includes(metadata.metatype);
    if (isDto && metadata.type === 'body' && value === undefined && OPTIONAL_BODIES.has(metadata.metatype!)) value = {};
    if (isDto && metadata.type === 'body' && (value === null || typeof value !== 'object' || Array.isArray(value))) {
      throw badRequest('The request body must be a JSON object.');
    }
    if (isDto && (metadata.type === 'body' || metadata.type === 'query')) {
      const inherited = inheritedKey(value);
      if (inherited !== undefined) {
        const failure = readFailure(inherited, 'whitelistValidation', '');
        throw badRequest(failure.message, inherited, [failure]);
      }
    }
    if (isDto && metadata.type === 'query') {
      if (value === null || typeof value !== 'object') value = {};
      return this.validQueries.transform(metadata.metatype as Type, value as object, () =>
        super.transform(value, metadata),
      );
    }
    return super.transform(value, metadata);
  }

  private readonly validQueries = new ValidQueries();
}

/**
 * Query DTOs passed before, by their query text. Transforming and validating a list query
 * (class-transformer and class-validator, ~5% of the panel's CPU on a client list page, 6 µs per
 * `?perPage=50` alone against 0.3 µs for a copy of the result) gives the
 * same instance for the same input, since every query rule is a pure function of the value; a
 * page is asked for again and again with the same query, so each query that passed is checked
 * once and copied afterwards. Failures are not kept: every 400 comes from the full check.
 */
class ValidQueries {
  private static readonly MAX_PER_DTO = 500;
  private readonly byDto = new Map<Type, Map<string, object>>();

  async transform(dto: Type, query: object, check: () => Promise<unknown>): Promise<unknown> {
    const key = JSON.stringify(query);
    let known = this.byDto.get(dto);
    const passed = known?.get(key);
    if (passed) return Object.assign(new dto(), passed);
    const result = await check();
    if (!known) this.byDto.set(dto, (known = new Map()));
    if (known.size >= ValidQueries.MAX_PER_DTO) known.clear();
    // Only flat results are shared: a copy of one holding an object would share that object.
    if (result instanceof dto && Object.values(result).every((field) => field === null || typeof field !== 'object')) {
      known.set(key, { ...(result as object) });
    }
    return result;
  }
}
