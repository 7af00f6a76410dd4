// `npm run bench`: runs every benchmark in bench/ and writes docs/benchmarks.md (one section each).
// Settings (environment): BENCH_DURATION seconds per measured run (10), BENCH_WARMUP (2),
// BENCH_CONNECTIONS (16), BENCH_PIPELINING (1), BENCH_ROUNDS (1), BENCH_CLIENT=process|inline,
// BENCH_TARGETS=bare,token,session (a subset skips the doc), BENCH_WRITE=0 (print only),
// DATABASE_URL / REDIS_URL (the machine's servers; a throw-away database is created and dropped).
import { fileURLToPath } from 'node:url';
import * as httpAuth from './http-auth.js';

const docFile = fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url));
const writeDoc = process.env.BENCH_WRITE !== '0';

try {
  await httpAuth.run({ writeDoc, docFile, command: 'npm run bench' });
  process.exit(0);
} catch (error) {
  console.error(`\nbench FAILED: ${error?.stack ?? error}`);
  process.exit(1);
}
