// The load generator as a child process: it gets its own event loop (and core), so the server
// under test is not slowed by the client's work. Driven over IPC by bench/lib/client-process.js.
import { runLoad } from './lib/load.js';

process.once('message', async (options) => {
  try {
    const result = await runLoad(options, () => process.send({ type: 'measuring' }));
    process.send({ type: 'result', result }, () => process.exit(0));
  } catch (error) {
    process.send({ type: 'error', message: error?.stack ?? String(error) }, () => process.exit(1));
  }
});
// The bench is gone (Ctrl-C, a crash): no load without it.
process.once('disconnect', () => process.exit(1));
