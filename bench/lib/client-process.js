import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runLoad } from './load.js';

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
