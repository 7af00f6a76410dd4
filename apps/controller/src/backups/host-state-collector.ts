import { Inject, Injectable } from '@nestjs/common';
import { HOST_STATE_JOB, hostStateSchema, type HostState } from '#libs/contracts/host-state.js';
import { nodeQueueName } from '#libs/contracts/node-queue.js';
import { awaitJob } from '../queue/await-job.js';
import type { QueueBackend } from '../queue/queue-backend.js';
import { QUEUE_BACKEND } from '../runtime.js';

/** How long a backup waits for the agents' host state; a node that does not answer in time is recorded as unreachable. */
export const HOST_STATE_TIMEOUT_MS = 15_000;

export type CollectedHostState = { state: 'collected'; hostState: HostState } | { state: 'unreachable'; error: string };

/**
 * The node-side part of a backup: a HOST_STATE_JOB on each node's own queue, all nodes at once.
 * A job no agent took in time is removed, so an agent that comes back later does not do the
 * work for nothing.
 */
@Injectable()
export class HostStateCollector {
  constructor(@Inject(QUEUE_BACKEND) private readonly queues: QueueBackend) {}

  async collect(
    nodeIds: string[],
    runId: string,
    timeoutMs = HOST_STATE_TIMEOUT_MS,
  ): Promise<Map<string, CollectedHostState>> {
    const results = await Promise.all(
      nodeIds.map(async (nodeId) => [nodeId, await this.collectOne(nodeId, runId, timeoutMs)] as const),
    );
    return new Map(results);
  }

  private async collectOne(nodeId: string, runId: string, timeoutMs: number): Promise<CollectedHostState> {
    const queue = this.queues.queue(nodeQueueName(nodeId));
    const jobId = `${HOST_STATE_JOB}:${nodeId}:${runId}`;
    try {
      await queue.add(HOST_STATE_JOB, {}, { jobId, attempts: 1, removeOnFail: { count: 5 } });
      const outcome = await awaitJob(queue, jobId, timeoutMs);
      if (outcome.state === 'pending')
        return { state: 'unreachable', error: `the agent did not answer within ${timeoutMs / 1000} s` };
      if (outcome.state === 'failed')
        return { state: 'unreachable', error: `the agent failed: ${outcome.reason.slice(0, 300)}` };
      const parsed = hostStateSchema.safeParse(outcome.value);
      if (!parsed.success)
        return { state: 'unreachable', error: 'the agent answered with something that is not host state' };
      return { state: 'collected', hostState: parsed.data };
    } catch (error) {
      return {
        state: 'unreachable',
        error: `the node's queue could not be reached: ${(error as Error).message.slice(0, 300)}`,
      };
    } finally {
      await queue.remove(jobId).catch(() => undefined);
    }
  }
}
