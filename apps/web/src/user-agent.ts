/**
 * A browser's User-Agent as people name it ("Chrome 156 · Linux", "Firefox 140 · Windows"), or
 * null when it is none the panel knows (a program: curl, a script), which is then shown as sent.
 * Order matters: Edge and Opera say "Chrome" too, Chrome says "Safari", Android says "Linux".
 */
export function browserName(userAgent: string): string | null {
  const browsers: [RegExp, string][] = [
    [/Edg\/(\d+)/, 'Edge'],
    [/OPR\/(\d+)/, 'Opera'],
    [/Firefox\/(\d+)/, 'Firefox'],
    [/HeadlessChrome\/(\d+)/, 'Chrome'],
    [/Chrom(?:e|ium)\/(\d+)/, 'Chrome'],
    [/Version\/(\d+)[\d.]* .*Safari\//, 'Safari'],
  ];
  const systems: [RegExp, string][] = [
    [/Android/, 'Android'],
    [/iPhone|iPad|iPod/, 'iOS'],
    [/Windows/, 'Windows'],
    [/Mac OS X|Macintosh/, 'macOS'],
    [/CrOS/, 'ChromeOS'],
    [/Linux/, 'Linux'],
  ];
  const browser = browsers.find(([pattern]) => pattern.test(userAgent));
  if (!browser) return null;
  const version = browser[0].exec(userAgent)![1];
  const system = systems.find(([pattern]) => pattern.test(userAgent))?.[1];
  return [`${browser[1]} ${version}`, system].filter(Boolean).join(' · ');
}
