// Runs once after all suites. Every test file removes what it made on the shared servers (its
// databases, Redis keys and ACL users, network namespaces); what is still there under this run's
// id (test/support/leftovers.js) was left by a file that crashed or forgot: it is removed here,
// named, and the run fails, so a leak is seen the day it appears. Then a check that none remain.
// Last, what test/global-setup.js started is stopped (nothing when the machine's services were used).
import { leftoversOf, TEST_RUN } from './support/leftovers.js';

export default async function globalTeardown() {
  const servers = { databaseUrl: process.env.DATABASE_URL, redisUrl: process.env.REDIS_URL };
  let failure;
  try {
    const swept = await leftoversOf(TEST_RUN, { ...servers, remove: true });
    const remaining = await leftoversOf(TEST_RUN, servers);
    if (swept.length > 0 || remaining.length > 0) {
      failure = new Error(
        [
          `test run ${TEST_RUN} left things behind on the shared servers (a test file did not clean up):`,
          ...swept.map((line) => `  removed: ${line}`),
          ...remaining.map((line) => `  STILL THERE: ${line}`),
        ].join('\n'),
      );
    } else {
      process.stdout.write(`test run ${TEST_RUN}: nothing left behind (databases, Redis keys and users, namespaces)\n`);
    }
  } finally {
    for (const service of (globalThis.__warrenTestServices ?? []).reverse()) await service.stop();
  }
  if (failure) throw failure;
}
