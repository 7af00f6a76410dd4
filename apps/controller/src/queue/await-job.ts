import type { AnyQueue } from './queue-backend.js';

export type JobOutcome =
  { state: 'completed'; value: unknown } | { state: 'failed'; reason: string } | { state: 'pending' };

/**
 * Waits for a job to finish, up to `timeoutMs`, by reading its state: the same on both queue
 * stores (Redis and BullMQ's PostgreSQL backend), with no event stream to hold open. Checks get
 * sparser the longer the job runs (50 ms up to 500 ms): short jobs answer quickly, long ones cost
 * a few reads a second. `pauses` narrows that for a job that is timed (a node probe's round trip).
 */
export async function awaitJob(
  queue: AnyQueue,
  jobId: string,
  timeoutMs: number,
  pauses: { firstMs: number; maxMs: number } = { firstMs: 50, maxMs: 500 },
): Promise<JobOutcome> {
  const deadline = Date.now() + timeoutMs;
  let pause = pauses.firstMs;
  for (;;) {
    const state = await queue.getJobState(jobId);
    if (state === 'completed' || state === 'failed') {
      const job = await queue.getJob(jobId);
      if (!job) return { state: 'failed', reason: 'the job was removed before its result was read' };
      return state === 'completed'
        ? { state, value: job.returnvalue }
        : { state, reason: job.failedReason ?? 'failed' };
    }
    if (state === 'unknown') return { state: 'failed', reason: 'no such job' };
    const left = deadline - Date.now();
    if (left <= 0) return { state: 'pending' };
    await new Promise((resolve) => setTimeout(resolve, Math.min(pause, left)));
    pause = Math.min(pause * 2, pauses.maxMs);
  }
}
