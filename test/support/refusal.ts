/**
 * What a refused request answers (the contract's `{error, field}`), as a Jest expectation: with a
 * field at fault, `errors` lists every failing field, that one first, each with a code and a
 * sentence; with none, there is no `errors`.
 */
export function refusal(field: string, error: unknown = expect.any(String)): Record<string, unknown> {
  if (!field) return { error, field };
  return { error, field, errors: firstFailingField(field) };
}

/** An `errors` list whose first entry is the given field, and every entry well formed. */
function firstFailingField(field: string) {
  const wellFormed = (entry: unknown) => {
    const { field: at, code, message } = (entry ?? {}) as Record<string, unknown>;
    return typeof at === 'string' && typeof code === 'string' && code !== '' && typeof message === 'string';
  };
  return {
    $$typeof: Symbol.for('jest.asymmetricMatcher'),
    asymmetricMatch: (value: unknown) =>
      Array.isArray(value) &&
      value.length > 0 &&
      value.every(wellFormed) &&
      (value[0] as { field: string }).field === field,
    toString: () => 'FailingFieldsStartingWith',
    toAsymmetricMatcher: () => `errors listing ${JSON.stringify(field)} first`,
  };
}

/** Whether a body is a refusal in the contract's shape, by the same rule as refusal(). */
export function isRefusal(body: unknown): boolean {
  if (body === null || typeof body !== 'object') return false;
  // A reseller's ceiling refusal adds which ceiling and the room left under it (docs/operators.md).
  const { error, field, errors, ceiling, remaining, ...rest } = body as Record<string, unknown>;
  if (typeof error !== 'string' || typeof field !== 'string' || Object.keys(rest).length > 0) return false;
  if ((ceiling === undefined) !== (remaining === undefined)) return false;
  if (ceiling !== undefined && typeof ceiling !== 'string') return false;
  // No field at fault: no list. A property named "" at fault (a body of `{"": …}`) is a field too.
  if (!field && errors === undefined) return true;
  return firstFailingField(field).asymmetricMatch(errors);
}
