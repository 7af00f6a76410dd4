import { safeNext } from '../../apps/web/src/safe-next.js';

/** The sign-in page's redirect target (apps/web/src/pages/sign-in.tsx): only this panel's paths. */

describe('safeNext', () => {
  test.each(['/clients', '/clients/5f0c?tab=devices', '/overview#top', '/routing?nodeId=a%2Fb'])('%s is kept', (next) =>
    expect(safeNext(next)).toBe(next),
  );

  test.each([
    null,
    '',
    'clients',
    'https://example.org/',
    '//example.org',
    '/\\example.org',
    '\\/example.org',
    '/\t/example.org',
    '/\n/example.org',
    '/\r/example.org',
    '/clients\\..\\x',
    '/\u0000x',
    'javascript:alert(1)',
    ' /clients',
  ])('%j goes to the overview', (next) => expect(safeNext(next)).toBe('/overview'));
});
