/**
 * What never reaches a log line. Two layers: structured fields by name (pino's `redact`, for
 * objects logged as fields) and secret-shaped text inside messages and error texts (scrubText),
 * because most lines are sentences a service wrote, and an error from a driver may quote what it
 * was given.
 */
export const CENSOR = '[redacted]';

/** Field names whose values are secrets, at the top level and one level down (pino redact paths). */
const SECRET_FIELDS = [
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
];

export const REDACT_PATHS = [
  ...SECRET_FIELDS,
  ...SECRET_FIELDS.map((field) => `*.${field}`),
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'headers["set-cookie"]',
];

const TEXT_RULES: [RegExp, string][] = [
  // The panel's own secrets: API tokens (wrn_), enrolment secrets (wne_), node credentials (wnc_)…
  [/\b(w[a-z]{2}_)[0-9A-Za-z]{16,}/g, `$1${CENSOR}`],
  // Credentials in headers quoted into a message.
  [/\b(bearer|basic)(\s+)[^\s"',;]+/gi, `$1$2${CENSOR}`],
  [/\b(cookie:\s*)[^\r\n]+/gi, `$1${CENSOR}`],
  // Passwords in connection strings: scheme://user:password@host.
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^:/\s@]*:)[^@\s/]+@/gi, `$1${CENSOR}@`],
  // key = value / "key": "value" for secret names (WireGuard's PrivateKey = …, JSON bodies).
  [/\b((?:password|passwd|secret|token|credential|private_?key|preshared_?key)["']?\s*[:=]\s*["']?)[^\s"',;}&]+/gi, `$1${CENSOR}`],
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
