/**
 * Text the panel can store and hand on: no NUL (PostgreSQL refuses it in text, and C tools cut
 * strings there) and no unpaired UTF-16 surrogate (it has no UTF-8 form: the driver would store
 * U+FFFD in its place, silently changing the value). Every string that enters through a request,
 * body, query or path, passes this check before any handler sees it.
 */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const UNSTORABLE_TEXT = 'text may not contain NUL characters or unpaired surrogates';

export function isStorableText(text: string): boolean {
  return !UNSTORABLE.test(text);
}

/**
 * The dotted path (`items.2.name`, "" for the value itself) of the first string in a parsed JSON
 * value, or of the first object key, that is not storable; undefined when all are. Recursion is
 * safe: bodies are refused above MAX_JSON_DEPTH before they are parsed (json-body.ts).
 */
export function findUnstorableText(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return isStorableText(value) ? undefined : path;
  if (value === null || typeof value !== 'object') return undefined;
  const entries = Array.isArray(value) ? value.map((item, index) => [String(index), item] as const) : Object.entries(value);
  for (const [key, item] of entries) {
    // A bad key cannot name itself: the object holding it is the field at fault.
    if (!isStorableText(key)) return path;
    const found = findUnstorableText(item, path ? `${path}.${key}` : key);
    if (found !== undefined) return found;
  }
  return undefined;
}
