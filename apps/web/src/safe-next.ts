/**
 * Where to go after signing in: `next` only when it is a path of this panel, else the overview.
 * A path starts with exactly one `/`; `//host` and `/\host` are other origins to a browser (it
 * reads `\` as `/`), and tab, CR and LF are dropped from URLs before parsing (`/<TAB>/host` is
 * `//host`). The router's history.replaceState throws a SecurityError on another origin, which
 * left the page stuck on /sign-in after a successful sign-in, and a redirect would leave the
 * panel. So: no backslash and no control character anywhere, and the URL it resolves to keeps
 * the origin.
 */
export function safeNext(next: string | null | undefined, fallback = '/overview'): string {
  if (!next || !next.startsWith('/') || next.startsWith('//')) return fallback;
  if (/[\\\u0000-\u001f\u007f]/.test(next)) return fallback;
  try {
    const base = 'https://panel.invalid';
    if (new URL(next, base).origin !== base) return fallback;
  } catch {
    return fallback;
  }
  return next;
}
