import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { collectProcessMetrics } from './process-metrics.js';

/** Seconds; from a fast cached GET to a slow import or backup. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Seconds from an agent reading its counters to the controller recording them. */
const LAG_BUCKETS = [0.1, 0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600];

/**
 * Every metric the panel serves at GET /api/metrics, in one registry of its own (not prom-client's
 * global one: several panels share a process in the tests). Services record into it as things
 * happen; the gauges of state (nodes, queues) are set when a scrape asks (monitoring/).
 *
 * Labels stay bounded: routes are patterns (`/api/clients/:id`), nodes are ids (one series per
 * node, as many as the nodes table has rows), queues the controller's own few.
 */
export class PanelMetrics {
  readonly registry = new Registry();

  readonly httpDuration = new Histogram({
    name: 'warren_http_request_duration_seconds',
    help: 'HTTP requests by method, route pattern and status, with their duration',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: HTTP_BUCKETS,
    registers: [this.registry],
  });

  readonly jobs = new Counter({
    name: 'warren_jobs_total',
    help: "Jobs of the controller's own queues by queue and outcome (completed, failed)",
    labelNames: ['queue', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly applies = new Counter({
    name: 'warren_node_applies_total',
    help: 'Apply jobs an agent reported done, by node and outcome (ok, failed)',
    labelNames: ['node', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly queueJobs = new Gauge({
    name: 'warren_node_queue_jobs',
    help: "Jobs on a node's queue by state (waiting, delayed, active, prioritized, failed), read at scrape",
    labelNames: ['node', 'state'] as const,
    registers: [this.registry],
  });

  readonly queueStoreUp = new Gauge({
    name: 'warren_queue_store_up',
    help: 'Whether the queue store answered the last scrape (1) or not (0)',
    registers: [this.registry],
  });

  readonly nodes = new Gauge({
    name: 'warren_nodes',
    help: 'Nodes by state: in_sync, behind (connected, not yet at the desired revision), offline (agent not connected), unmanaged (no agent meant to run: the local node with WARREN_LOCAL_AGENT=off)',
    labelNames: ['state'] as const,
    registers: [this.registry],
  });

  readonly nodeInSync = new Gauge({
    name: 'warren_node_in_sync',
    help: 'Whether the node has applied its desired revision (1) or not (0); no series for an unmanaged node',
    labelNames: ['node'] as const,
    registers: [this.registry],
  });

  readonly nodeInfo = new Gauge({
    name: 'warren_node_info',
    help: "A node's name (always 1; join on `node`)",
    labelNames: ['node', 'name'] as const,
    registers: [this.registry],
  });

  readonly outbounds = new Gauge({
    name: 'warren_outbounds',
    help: 'Hops by state: up, down (running, its last check failed), failed, disabled, unknown, offline (the node agent is not linked)',
    labelNames: ['state'] as const,
    registers: [this.registry],
  });

  readonly outboundUp = new Gauge({
    name: 'warren_outbound_up',
    help: 'Whether the hop is up (1) or not (0: down, failed, disabled or unknown), by node and outbound id',
    labelNames: ['node', 'outbound'] as const,
    registers: [this.registry],
  });

  readonly agentsConnected = new Gauge({
    name: 'warren_agents_connected',
    help: 'Agents connected to the controllers now',
    registers: [this.registry],
  });

  readonly deliveryReads = new Counter({
    name: 'warren_delivery_reads_total',
    help: "How deliveries read a node's state: journal (the last state patched with the peer journal's changes) or whole",
    labelNames: ['read'] as const,
    registers: [this.registry],
  });

  readonly counterBatches = new Counter({
    name: 'warren_counter_batches_total',
    help: 'Usage counter batches from agents by outcome (recorded, duplicate, refused)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly counterBatchLag = new Histogram({
    name: 'warren_counter_batch_lag_seconds',
    help: "From an agent reading its counters to the controller recording the batch (by the agent's clock)",
    buckets: LAG_BUCKETS,
    registers: [this.registry],
  });

  readonly counterCommitBatches = new Histogram({
    name: 'warren_counter_commit_batches',
    help: 'Counter batches recorded together in one transaction (clients/counter-commits.ts)',
    buckets: [1, 2, 4, 8, 16, 32, 64],
    registers: [this.registry],
  });

  readonly historyWritten = new Counter({
    name: 'warren_history_samples_written_total',
    help: 'System history samples written to the database (rate() gives the write rate)',
    registers: [this.registry],
  });

  readonly historyBuffered = new Gauge({
    name: 'warren_history_samples_buffered',
    help: 'System history samples waiting to be written',
    registers: [this.registry],
  });

  /** Ends what watches the process for the default metrics (GC, event loop); the panel's close() calls it. */
  readonly stop = collectProcessMetrics(this.registry);
}
