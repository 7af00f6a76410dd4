/**
 * What never reaches a log line. Two layers: structured fields by name (pino's `redact`, for
 * objects logged as fields) and secret-shaped text inside messages and error texts (scrubText),
 * because most lines are sentences a service wrote, and an error from a driver may quote what it
 * was given.
 */
export const CENSOR = '[redacted]';

/** Field names whose values are secrets, wherever they appear in the first two levels of a line. */
const SECRET_FIELDS = new Set([
  'password',
  'currentPassword',
  'newPassword',
  'token',
  'secret',
  'credential',
  'privateKey',
  'presharedKey',
  'private_key',
  'preshared_key',
  'authorization',
  'cookie',
  'set-cookie',
]);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Error);
}

/**
 * A line's fields with secret-named values replaced, at the top level and one level down
 * (`headers.authorization`). Copies only what it changes. pino's own `redact` does this with
 * wildcard paths at about 100 µs a line; this is a set lookup a field.
 */
export function redactFields(fields: Record<string, unknown>): Record<string, unknown> {
  let out = fields;
  for (const key in fields) {
    const value = fields[key];
    let replaced: unknown = value;
    if (SECRET_FIELDS.has(key)) replaced = CENSOR;
    else if (isPlainObject(value)) {
      let inner = value;
      for (const innerKey in value) {
        if (!SECRET_FIELDS.has(innerKey)) continue;
        if (inner === value) inner = { ...value };
        inner[innerKey] = CENSOR;
      }
      replaced = inner;
    }
    if (replaced !== value) {
      if (out === fields) out = { ...fields };
      out[key] = replaced;
    }
  }
  return out;
}

const TEXT_RULES: [RegExp, string][] = [
  // The panel's own secrets: API tokens (wrn_), enrolment secrets (wne_), node credentials (wnc_)…
  [/\b(w[a-z]{2}_)[0-9A-Za-z]{16,}/g, `$1${CENSOR}`],
  // Credentials in headers quoted into a message.
  [/\b(bearer|basic)(\s+)[^\s"',;]+/gi, `$1$2${CENSOR}`],
  [/\b(cookie:\s*)[^\r\n]+/gi, `$1${CENSOR}`],
  // Passwords in connection strings: scheme://user:password@host.
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^:/\s@]*:)[^@\s/]+@/gi, `$1${CENSOR}@`],
  // key = value / "key": "value" for secret names (WireGuard's PrivateKey = …, JSON bodies).
  [
    /\b((?:password|passwd|secret|token|credential|private_?key|preshared_?key)["']?\s*[:=]\s*["']?)[^\s"',;}&]+/gi,
    `$1${CENSOR}`,
  ],
  // PEM private keys, whole.
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g, CENSOR],
];

/** Cheap pre-check: text without any of these cannot match a rule (most lines). */
const MAYBE_SECRET = /w[a-z]{2}_|bearer|basic|cookie|:\/\/|password|passwd|secret|token|credential|key/i;

export function scrubText(text: string): string {
  if (!MAYBE_SECRET.test(text)) return text;
  let scrubbed = text;
  for (const [pattern, replacement] of TEXT_RULES) scrubbed = scrubbed.replace(pattern, replacement);
  return scrubbed;
}
