import { Alert } from '@mantine/core';
import { ApiError, messageOf } from '../api.js';

/**
 * The API names the offending field of a refused request (`field`, a path such as `dns.1`): its
 * message goes next to that input; `fieldError(error, 'dns')` also takes the items of a list.
 */
export function fieldError(error: unknown, ...fields: string[]): string | undefined {
  if (!(error instanceof ApiError) || !error.field) return undefined;
  return fields.some((field) => error.field === field || error.field.startsWith(`${field}.`))
    ? error.message
    : undefined;
}

/** The error of a failed submit that no input of the form shows (no field, or a field the form has not). */
export function FormError({ error, fields = [] }: { error: unknown; fields?: string[] }) {
  if (!error) return null;
  if (fieldError(error, ...fields)) return null;
  const field = error instanceof ApiError && error.field ? ` (${error.field})` : '';
  return (
    <Alert color="red" variant="light" role="alert" data-testid="form-error">
      {messageOf(error)}
      {field}
    </Alert>
  );
}
