// Jest runs TypeScript sources as native ES modules (node --experimental-vm-modules) through SWC,
// with the same decorator settings as the build (.swcrc): Nest injection needs decorator metadata.
//
// One test file at a time (the files share one machine's ports, namespaces and CPU), in a worker
// process that Jest replaces when it holds more than `workerIdleMemoryLimit` after a file: Jest's
// ES-module mode keeps part of each finished file's module graph reachable, and a fresh worker
// drops it, so the run needs no more than Node's default heap (docs/testing.md).
import { readFileSync } from 'node:fs';

const swc = JSON.parse(readFileSync(new URL('./.swcrc', import.meta.url), 'utf8'));
delete swc.exclude;
delete swc.$schema;

export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { ...swc, swcrc: false }] },
  moduleNameMapper: {
    '^#libs/(.*)\\.js$': '<rootDir>/libs/$1',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  testMatch: ['<rootDir>/apps/**/*.spec.ts', '<rootDir>/libs/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
  globalSetup: '<rootDir>/test/global-setup.js',
  globalTeardown: '<rootDir>/test/global-teardown.js',
  testTimeout: 60000,
  maxWorkers: 1,
  workerIdleMemoryLimit: '1GB',
  reporters: ['default', '<rootDir>/test/durations-reporter.js'],
};
