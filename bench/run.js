// `npm run bench`: runs every benchmark in bench/ and writes docs/benchmarks.md (one section each).
// BENCH_SMOKE=1 (`npm run bench:smoke`, run by .ci/run): every benchmark at its smoke size (the
// SMOKE settings each file exports: every phase once, a few seconds each), nothing written to
// docs/benchmarks.md; a change that breaks a bench fails CI. A setting given in the environment wins.
// BENCH_ONLY=http-auth|clients|client-batch|audit|overview|subscription-page|reseller-list|agent-host|agent-propagation|agent-fleet|routing-apply|speed-limits|web|two-controllers|wireguard-libs|bulk-extend|usage-history|soak (comma-separated) runs just those.
// Settings of http-auth (environment): BENCH_DURATION seconds per measured run (10), BENCH_WARMUP (2),
// BENCH_CONNECTIONS (16), BENCH_PIPELINING (1), BENCH_ROUNDS (1), BENCH_CLIENT=process|inline,
// BENCH_TARGETS=bare,token,session (a subset skips the doc), BENCH_LOG_LEVEL (the panel's WARREN_LOG_LEVEL, default error). Settings of clients: see bench/clients.js
// (BENCH_CLIENTS, BENCH_CREATE_CONCURRENCY, BENCH_LIST_CONNECTIONS, BENCH_SEQUENTIAL, BENCH_DURATION…). Settings of audit: see bench/audit.js; of client-batch: bench/client-batch.js.
// Both: BENCH_WRITE=0 (print only), DATABASE_URL / REDIS_URL (the machine's servers; a throw-away
// database is created and dropped). overview, agent-propagation, agent-fleet and soak: settings at the top of each file.
import { fileURLToPath } from 'node:url';
import * as httpAuth from './http-auth.js';
import * as clients from './clients.js';
import * as clientBatch from './client-batch.js';
import * as audit from './audit.js';
import * as overview from './overview.js';
import * as subscriptionPage from './subscription-page.js';
import * as resellerList from './reseller-list.js';
import * as agentHost from './agent-host.js';
import * as agentPropagation from './agent-propagation.js';
import * as agentFleet from './agent-fleet.js';
import * as routingApply from './routing-apply.js';
import * as speedLimits from './speed-limits.js';
import * as web from './web.js';
import * as twoControllers from './two-controllers.js';
import * as wireguardLibs from './wireguard-libs.js';
import * as bulkExtend from './bulk-extend.js';
import * as usageHistory from './usage-history.js';
import * as soak from './soak.js';

const BENCHMARKS = {
  'http-auth': httpAuth,
  clients,
  'client-batch': clientBatch,
  audit,
  overview,
  'subscription-page': subscriptionPage,
  'reseller-list': resellerList,
  'agent-host': agentHost,
  'agent-propagation': agentPropagation,
  'agent-fleet': agentFleet,
  'routing-apply': routingApply,
  'speed-limits': speedLimits,
  web,
  'two-controllers': twoControllers,
  'wireguard-libs': wireguardLibs,
  'bulk-extend': bulkExtend,
  'usage-history': usageHistory,
  soak,
};

const docFile = fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url));
const smoke = process.env.BENCH_SMOKE === '1';
const writeDoc = process.env.BENCH_WRITE !== '0' && !smoke;

/** Runs `work` with `settings` in the environment (where not set already), restoring it afterwards. */
async function withSettings(settings, work) {
  const added = Object.keys(settings).filter((name) => process.env[name] === undefined);
  for (const name of added) process.env[name] = settings[name];
  try {
    return await work();
  } finally {
    for (const name of added) delete process.env[name];
  }
}

try {
  const only = (process.env.BENCH_ONLY ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  for (const name of only) {
    if (!(name in BENCHMARKS))
      throw new Error(`BENCH_ONLY: unknown benchmark "${name}" (known: ${Object.keys(BENCHMARKS).join(', ')})`);
  }
  const timings = [];
  for (const [name, benchmark] of Object.entries(BENCHMARKS)) {
    if (only.length && !only.includes(name)) continue;
    console.log(`\n=== bench: ${name} (${benchmark.TITLE})${smoke ? ' at its smoke size' : ''} ===`);
    const startedAt = Date.now();
    await withSettings(smoke ? benchmark.SMOKE : {}, () =>
      benchmark.run({ writeDoc, docFile, command: 'npm run bench' }),
    );
    timings.push(`${name} ${((Date.now() - startedAt) / 1000).toFixed(0)} s`);
  }
  console.log(`\nbench: done${smoke ? ' (smoke sizes, nothing recorded)' : ''}: ${timings.join(', ')}`);
  process.exit(0);
} catch (error) {
  console.error(`\nbench FAILED: ${error?.stack ?? error}`);
  process.exit(1);
}
