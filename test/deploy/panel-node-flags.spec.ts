import { readFileSync } from 'node:fs';

// Every launcher of the panel passes the same V8 heap flags and malloc settings (docs/memory.md): a
// launcher without them lets the panel's RSS grow to several times its live heap on a host with much RAM.
const FLAGS = [
  '--max-semi-space-size=16',
  '--max-old-space-size=1024',
  '--expose-gc',
  'MALLOC_ARENA_MAX',
  'MALLOC_MMAP_THRESHOLD_',
];
const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('the panel starts with its V8 heap flags and malloc settings', () => {
  it.each([
    ['npm start', () => JSON.parse(read('package.json')).scripts.start as string],
    [
      'deploy/warren.service',
      () =>
        read('deploy/warren.service')
          .match(/^(Environment=MALLOC.*|ExecStart=.*)$/gm)!
          .join(' '),
    ],
    [
      'deploy/Dockerfile',
      () =>
        read('deploy/Dockerfile')
          .match(/^(ENV MALLOC.*|CMD .*)$/gm)!
          .join(' '),
    ],
    [
      'bench/lib/panel-process.js',
      () =>
        read('bench/lib/panel-process.js')
          .match(/^export const PANEL_(NODE_FLAGS|MALLOC_ENV) = .*$/gm)!
          .join(' '),
    ],
  ])('%s', (_name, launcher) => {
    const text = launcher();
    for (const flag of FLAGS) expect(text).toContain(flag);
  });
});
