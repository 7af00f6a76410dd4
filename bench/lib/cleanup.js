/**
 * One cleanup for a bench run, however many callers: steps registered with add() run in reverse
 * order, once; a signal (Ctrl-C) and the failure it causes both wait for the same run, so the
 * process never exits halfway (leaving a panel, a namespace or a database behind).
 */
export function cleanupScope(label) {
  const steps = [];
  let running;
  const run = () =>
    (running ??= (async () => {
      for (const [name, step] of steps.reverse()) {
        try {
          await step();
        } catch (error) {
          console.error(`bench: cleanup (${name}) failed: ${error?.message ?? error}`);
        }
      }
    })());
  const onSignal = (signal) => {
    if (running) return;
    console.error(`bench: ${signal} received, cleaning up ${label}…`);
    void run().finally(() => process.exit(130));
  };
  // Kept (not once) until the cleanup is done: a signal that comes again meanwhile must not kill the
  // process halfway. An in-process panel's NestJS shutdown hook does just that: it closes the app
  // and raises the same signal on this process again.
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    /** Registers a step; it runs even when a later step fails. */
    add(name, step) {
      steps.push([name, step]);
    },
    async run() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      await run();
    },
  };
}
