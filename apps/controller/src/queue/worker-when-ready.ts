import type { Processor } from 'bullmq';
import type { QueueBackend, WorkerTuning } from './queue-backend.js';

const RETRY_MS = 30_000;

/**
 * Starts a worker once the queue store answers (tried again every 30 s), as the backups' and the
 * recurring jobs' workers start: a worker made while the store is unreachable opens connections
 * that retry for ever, and a shutdown that cannot close it leaves the process running. Resolves
 * true once started, false when `stopped()` turned true first. The store closes the worker.
 */
export async function startWorkerWhenReady(
  queues: QueueBackend,
  queue: string,
  processor: Processor,
  options: WorkerTuning,
  stopped: () => boolean,
): Promise<boolean> {
  while (!stopped()) {
    try {
      await queues.ping(2000);
      if (stopped()) return false;
      queues.worker(queue, processor, options);
      return true;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS).unref());
    }
  }
  return false;
}
