import { z } from 'zod';

/**
 * Text the panel can store and hand on: no NUL (PostgreSQL refuses it in text, and C tools cut
 * strings there) and no unpaired UTF-16 surrogate (it has no UTF-8 form: the driver would store
 * U+FFFD in its place, silently changing the value). Every string that enters through a request
 * (body, query or path) or an agent's message passes this check before anything handles it.
 */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const UNSTORABLE_TEXT = 'text may not contain NUL characters or unpaired surrogates';

export function isStorableText(text: string): boolean {
  return !UNSTORABLE.test(text);
}

/** Free text in an agent's message, at most `max` characters. */
export function storableText(max: number) {
  return z.string().max(max).refine(isStorableText, UNSTORABLE_TEXT);
}
