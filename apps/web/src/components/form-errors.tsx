import { Alert, List } from '@mantine/core';
import type { TFunction } from 'i18next';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { FieldError } from '../../../../libs/contracts/api-error.js';
import { ApiError, messageOf } from '../api.js';

/**
 * The API refuses with every failing field (`errors: [{field, code, message, params}]`); the
 * panel shows each under its input, in the page's language, translated from the stable `code`
 * (the server's English sentence only for a code this build does not know).
 */

/** Codes whose server sentence carries the specifics (which subnet overlaps, which id is unknown). */
const DETAILED = new Set(['invalid', 'format', 'notFound', 'conflict', 'forbidden', 'ceiling']);

/**
 * One failure in the page's language, without the field's name: it shows under its input. A
 * sentence for this field and code (`fieldErrors.byField.interfaceIds.invalid`) comes first, then
 * the code's own; a code this build does not know gets a generic sentence. English shows the
 * server's sentence for the detailed codes; Persian never shows it (it is English).
 */
export function translateFailure(t: TFunction, failure: FieldError): string {
  const params = failure.params ?? {};
  const key = failure.code === 'tooShort' && Number(params.min) === 1 ? 'empty' : failure.code;
  // The innermost name: `awg.s2` is s2's failure (not one of `awg` as a whole), `dns.1` is dns's.
  const field =
    failure.field
      .split('.')
      .filter((part) => !/^\d+$/.test(part))
      .at(-1) ?? '';
  const specific = t(`fieldErrors.byField.${field}.${key}`, { defaultValue: '', ...params, message: failure.message });
  if (key && field && specific) return specific;
  if (!key || !t(`fieldErrors.${key}`, { defaultValue: '' }))
    return t('fieldErrors.fallback', { message: failure.message });
  if (DETAILED.has(key)) return t(`fieldErrors.${key}`, { message: failure.message });
  const count = Number(params.min ?? params.max ?? 0);
  return t(`fieldErrors.${key}`, { ...params, count });
}

/** The failures an error carries (none for an error that is not the API's refusal). */
function failuresOf(error: unknown): FieldError[] {
  return error instanceof ApiError ? error.errors : [];
}

/** Whether a failure's path (`dns.1`) belongs to the input named `field` (`dns`). */
const under = (path: string, field: string) => path === field || path.startsWith(`${field}.`);

/** Which entry of a list a path names (`dns.1` under `dns` is entry 2), or undefined for the field itself. */
function entryOf(path: string, field: string): number | undefined {
  const index = path.slice(field.length + 1).split('.')[0];
  return index && /^\d+$/.test(index) ? Number(index) + 1 : undefined;
}

export interface FieldErrors {
  /** What to show under the input that sends `fields` (each failure of them, translated), or undefined. */
  of: (...fields: string[]) => string | undefined;
}

/**
 * The one way a form shows the API's refusal: `values` are what the form sends, keyed by the
 * API's field names; a field's error goes away as soon as its value differs from the one that
 * was refused (and all come back fresh with the next refusal).
 */
export function useFieldErrors(error: unknown, values: Record<string, unknown>): FieldErrors {
  const { t } = useTranslation();
  const [refused, setRefused] = useState<{ error: unknown; values: Record<string, string> }>({
    error: undefined,
    values: {},
  });
  if (refused.error !== error) setRefused({ error, values: snapshot(values) });
  const changed = (path: string) => {
    const key = Object.keys(values).find((name) => under(path, name));
    return key !== undefined && refused.error === error && key in refused.values
      ? refused.values[key] !== JSON.stringify(values[key])
      : false;
  };
  return {
    of: (...fields) => {
      const lines = failuresOf(error).flatMap((failure) => {
        const field = fields.find((name) => under(failure.field, name));
        if (field === undefined || changed(failure.field)) return [];
        const entry = entryOf(failure.field, field);
        const text = translateFailure(t, failure);
        return [entry === undefined ? text : t('fieldErrors.entry', { entry, text })];
      });
      return lines.length ? lines.join(' ') : undefined;
    },
  };
}

function snapshot(values: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([key, value]) => [key, JSON.stringify(value)]));
}

/**
 * The part of a failed submit that no input of the form shows: each failure of a field the form
 * has not (named), or the message of an error about no field.
 */
export function FormError({ error, fields = [] }: { error: unknown; fields?: string[] }) {
  const { t } = useTranslation();
  const anchor = useRef<HTMLSpanElement>(null);
  useEffect(() => revealFirstError(anchor.current), [error]);
  if (!error) return null;
  const failures = failuresOf(error);
  const elsewhere = failures.filter((failure) => !fields.some((field) => under(failure.field, field)));
  const place = <span ref={anchor} hidden />;
  if (failures.length && !elsewhere.length) return place;
  return (
    <>
      {place}
      <Alert color="red" variant="light" role="alert" data-testid="form-error">
        {elsewhere.length === 0 ? (
          messageOf(error)
        ) : elsewhere.length === 1 ? (
          `${translateFailure(t, elsewhere[0]!)} (${elsewhere[0]!.field})`
        ) : (
          <List size="sm">
            {elsewhere.map((failure) => (
              <List.Item key={failure.field}>{`${translateFailure(t, failure)} (${failure.field})`}</List.Item>
            ))}
          </List>
        )}
      </Alert>
    </>
  );
}

/**
 * After a refusal, the first input with an error (in the form's order), or else the alert, is
 * scrolled into the middle of its dialog or page and an input gets the focus: a long dialog left
 * scrolled to its button hid "Choose at least one interface" under its header. Every form that
 * shows the API's refusal renders FormError, so this is the one place it happens.
 */
function revealFirstError(anchor: HTMLElement | null): void {
  const form = anchor?.closest('form') ?? anchor?.parentElement;
  const first = form?.querySelector<HTMLElement>('[aria-invalid="true"], [data-testid="form-error"]');
  if (!first) return;
  first.scrollIntoView({ block: 'center' });
  if (first.matches('input, textarea, select')) first.focus({ preventScroll: true });
}
