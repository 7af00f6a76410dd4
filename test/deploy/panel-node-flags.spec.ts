import { readFileSync } from 'node:fs';

// Every launcher of the panel passes the same V8 heap flags (docs/memory.md): a launcher without
// them lets the panel's RSS grow to several times its live heap on a host with much RAM.
const FLAGS = ['--max-semi-space-size=16', '--max-old-space-size=1024'];
const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('the panel starts with its V8 heap flags', () => {
  it.each([
    ['npm start', () => JSON.parse(read('package.json')).scripts.start as string],
    ['deploy/warren.service', () => read('deploy/warren.service').match(/^ExecStart=.*$/m)![0]],
    ['deploy/Dockerfile', () => (JSON.parse(read('deploy/Dockerfile').match(/^CMD (.*)$/m)![1]) as string[]).join(' ')],
    ['bench/lib/panel-process.js', () => read('bench/lib/panel-process.js').match(/^export const PANEL_NODE_FLAGS = .*$/m)![0]],
  ])('%s', (_name, launcher) => {
    const text = launcher();
    for (const flag of FLAGS) expect(text).toContain(flag);
  });
});
