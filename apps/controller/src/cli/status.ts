import { nodeQueueName } from '#libs/contracts/node-queue.js';
import type { WarrenConfig } from '../config/config.js';
import { NodesRepository } from '../nodes/nodes.repository.js';
import { openQueueBackend } from '../queue/queue-backend.js';
import { withTimeout } from '../common/with-timeout.js';
import { table } from './table.js';
import { openPanelDatabase } from './panel-database.js';

/** A node as `warren status` reports it. */
export interface NodeStatus {
  id: string;
  name: string;
  isLocal: boolean;
  agent: string;
  desiredRevision: number;
  appliedRevision: number;
  inSync: boolean;
  /** Jobs on the node's queue not yet done (waiting, delayed, running), or null when the queue store did not answer. */
  backlog: number | null;
  failedJobs: number | null;
}

/** `warren status [--json]`: every node with its agent, sync state and queue backlog. */
export async function status(config: WarrenConfig, options: { json: boolean }): Promise<void> {
  const database = await openPanelDatabase(
    config,
    options.json ? () => undefined : (message) => console.error(`warren: ${message}`),
  );
  let nodes: NodeStatus[];
  let queueError: string | undefined;
  try {
    const listed = await new NodesRepository(database.orm, config).list();
    const queues = await openQueueBackend({
      redisUrl: config.redisUrl,
      databaseUrl: database.url,
      prefix: config.queuePrefix,
    });
    try {
      nodes = await Promise.all(
        listed.map(async (node) => {
          const counts = await withTimeout(
            queues.queue(nodeQueueName(node.id)).getJobCounts('waiting', 'delayed', 'active', 'prioritized', 'failed'),
            3000,
            `the ${queues.kind} queue store`,
          ).catch((error: Error) => {
            queueError = error.message;
            return undefined;
          });
          return {
            id: node.id,
            name: node.name,
            isLocal: node.isLocal,
            agent: node.agent.state,
            desiredRevision: node.desiredRevision,
            appliedRevision: node.appliedRevision,
            inSync: node.inSync,
            backlog: counts ? counts.waiting + counts.delayed + counts.active + counts.prioritized : null,
            failedJobs: counts ? counts.failed : null,
          };
        }),
      );
    } finally {
      await queues.close();
    }
  } finally {
    await database.close();
  }
  if (options.json) {
    process.stdout.write(
      `${JSON.stringify({ nodes, queueStore: queueError ? { ok: false, error: queueError } : { ok: true } }, null, 2)}\n`,
    );
    return;
  }
  process.stdout.write(
    table(
      ['NODE', 'ID', 'AGENT', 'SYNC', 'REVISION (APPLIED/DESIRED)', 'BACKLOG', 'FAILED JOBS'],
      nodes.map((node) => [
        `${node.name}${node.isLocal ? ' (local)' : ''}`,
        node.id,
        node.agent,
        node.agent === 'unmanaged' ? 'unmanaged' : node.inSync ? 'in sync' : 'behind',
        `${node.appliedRevision}/${node.desiredRevision}`,
        node.backlog === null ? '?' : String(node.backlog),
        node.failedJobs === null ? '?' : String(node.failedJobs),
      ]),
    ),
  );
  // An unmanaged node (the local node with WARREN_LOCAL_AGENT=off) is neither in sync nor behind.
  const unmanaged = nodes.filter((node) => node.agent === 'unmanaged').length;
  const behind = nodes.filter((node) => node.agent !== 'unmanaged' && !node.inSync).length;
  process.stdout.write(
    `\n${nodes.length} node(s), ${nodes.length - unmanaged - behind} in sync, ${behind} behind${unmanaged ? `, ${unmanaged} unmanaged` : ''}.${queueError ? ` Queue store: ${queueError}.` : ''}\n`,
  );
}
