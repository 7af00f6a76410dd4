import { isStorableText } from '#libs/contracts/storable-text.js';

export { isStorableText, UNSTORABLE_TEXT } from '#libs/contracts/storable-text.js';

/**
 * The dotted path (`items.2.name`, "" for the value itself) of the first string in a parsed JSON
 * value, or of the first object key, that is not storable; undefined when all are. Recursion is
 * safe: bodies are refused above MAX_JSON_DEPTH before they are parsed (json-body.ts).
 */
export function findUnstorableText(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return isStorableText(value) ? undefined : path;
  if (value === null || typeof value !== 'object') return undefined;
  const entries = Array.isArray(value)
    ? value.map((item, index) => [String(index), item] as const)
    : Object.entries(value);
  for (const [key, item] of entries) {
    // A bad key cannot name itself: the object holding it is the field at fault.
    if (!isStorableText(key)) return path;
    const found = findUnstorableText(item, path ? `${path}.${key}` : key);
    if (found !== undefined) return found;
  }
  return undefined;
}
