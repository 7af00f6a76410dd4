/** One failing field: where, a stable code to translate, a sentence for people, and its numbers. */
export interface FieldError {
  /** The input as a path such as `items.2.name`. */
  field: string;
  /** What is wrong, stable across versions: `required`, `tooShort`, `oneOf`, `unknown`, `invalid`… */
  code: string;
  /** The same in a sentence, in English. */
  message: string;
  /** The numbers or values the code speaks of, e.g. `{min: 1}` for tooShort. */
  params?: Record<string, number | string>;
}

/**
 * The one error body every failing HTTP response carries. `field` is "" when no field is at
 * fault; `errors` lists every failing field (the first is `field` and `error`) and is absent when
 * none is.
 */
export interface ApiErrorBody {
  error: string;
  field: string;
  errors?: FieldError[];
  /** A reseller's ceiling the request would exceed (docs/operators.md, "Ceilings"), e.g. `maxQuotaBytes`. */
  ceiling?: string;
  /** The room left under that ceiling: bytes, days or clients, or the ids still allowed. */
  remaining?: number | string[];
}
