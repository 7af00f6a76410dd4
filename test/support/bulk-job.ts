import { waitFor } from './wait-for.js';

/** A bulk job as `GET /api/jobs/{id}` answers it (the fields the tests read). */
export interface BulkJob {
  id: string;
  state: string;
  [field: string]: unknown;
}

/**
 * Waits for a bulk job (`POST /api/clients/bulk` and the like answer 202 with its id) to end,
 * completed or failed: its changes land after the answer, so a test that compares the database
 * before and after must wait for them. `get` is the test's own authenticated GET.
 */
export function jobEnded(
  get: (path: string) => Promise<{ body: unknown }>,
  id: string,
  timeoutMs = 30_000,
): Promise<BulkJob> {
  return waitFor(
    `job ${id} to end`,
    async () => {
      const job = (await get(`jobs/${id}`)).body as BulkJob;
      return job.state === 'completed' || job.state === 'failed' ? job : undefined;
    },
    timeoutMs,
  );
}
