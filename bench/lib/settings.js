/**
 * A bench setting from the environment: `fallback` when unset or empty, else a number (a whole
 * one unless `integer: false`) of at least `min`; anything else fails the run before it starts.
 */
export function envNumber(name, fallback, min, { integer = true } = {}) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (integer ? !Number.isInteger(value) || value < min : !Number.isFinite(value) || value < min) {
    throw new Error(`${name} must be ${integer ? 'an integer' : 'a number'} >= ${min}, got "${raw}"`);
  }
  return value;
}

/** A comma-separated setting, each item one of `allowed`; never empty. */
export function envList(name, fallback, allowed) {
  const list = (process.env[name] ?? fallback)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const item of list)
    if (!allowed.includes(item)) throw new Error(`${name}: unknown "${item}" (known: ${allowed.join(', ')})`);
  if (list.length === 0) throw new Error(`${name} is empty`);
  return list;
}
