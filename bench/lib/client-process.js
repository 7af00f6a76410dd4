import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runLoad } from './load.js';
import { machineCpuTicks } from './machine.js';
import { machineBusyPercent } from './proc-stats.js';

const CLIENT = fileURLToPath(new URL('../client.js', import.meta.url));

/**
 * Runs one load run, in a child process (`mode: 'process'`, the default) or on this process's own
 * event loop (`mode: 'inline'`, only to show how much a shared loop distorts the figures).
 * `onMeasuring` is called when the warm-up is over and the measured run starts.
 */
export function measure(options, { mode = 'process', onMeasuring = () => {} } = {}) {
  if (mode === 'inline') return runLoad(options, onMeasuring);
  return new Promise((resolve, reject) => {
    // Same Node binary as ours (the pinned devDependency when started through npm), no inspector flags.
    const child = fork(CLIENT, [], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let settled = false;
    const settle = (fn, value) => {
      if (!settled) {
        settled = true;
        fn(value);
      }
    };
    child.on('message', (message) => {
      if (message.type === 'measuring') onMeasuring();
      else if (message.type === 'result') settle(resolve, message.result);
      else if (message.type === 'error') settle(reject, new Error(`load client failed: ${message.message}`));
    });
    child.on('error', (error) => settle(reject, error));
    child.on('exit', (code) => settle(reject, new Error(`load client exited with code ${code} before reporting`)));
    child.send(options);
  });
}

/**
 * One measure() run with CPU accounting over its measured part, in per cent of one core: the
 * server (`serverCpuMs()`, a reading in ms of whatever serves the requests), the load client, and
 * the rest of the machine's busy time.
 */
export async function measureWithCpu(options, { mode = 'process', serverCpuMs }) {
  let mark;
  const result = await measure(options, {
    mode,
    onMeasuring: () => {
      mark = { at: process.hrtime.bigint(), server: serverCpuMs(), machine: machineCpuTicks() };
    },
  });
  const elapsedMicros = Number(process.hrtime.bigint() - mark.at) / 1000;
  const busy = machineBusyPercent(mark.machine, machineCpuTicks());
  const server = (100 * 1000 * (serverCpuMs() - mark.server)) / elapsedMicros;
  // Inline, the client's CPU is already part of this process's.
  const client = mode === 'inline' ? undefined : (100 * result.clientCpuMicros) / elapsedMicros;
  return {
    ...result.measured,
    warmup: result.warmup,
    cpu: { server, client, rest: busy === undefined ? undefined : Math.max(0, busy - server - (client ?? 0)) },
  };
}

/** What went wrong in a load run (warm-up and measured part): anything but a clean 2xx, or no 2xx at all. */
export function loadFailures(name, run) {
  const out = [];
  for (const [phase, r] of [
    ['warm-up', run.warmup],
    ['measured', run],
  ]) {
    if (!r) continue;
    if (r.non2xx + r.errors + r.timeouts > 0 || r.ok === 0) {
      out.push(
        `${name} (${phase}): ${r.ok} 2xx, ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts; status codes ${JSON.stringify(r.statusCodeStats)}`,
      );
    }
  }
  return out;
}
