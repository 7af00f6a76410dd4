import { createRequire } from 'node:module';
import { constants, monitorEventLoopDelay, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { Gauge, Histogram, type Registry } from 'prom-client';

/**
 * prom-client's default metrics (process_*, nodejs_*), registered in the panel's registry and
 * stopped with the panel. prom-client's own collectDefaultMetrics() cannot be stopped: it installs
 * a process-wide GC observer and an event-loop monitor that live as long as the process. A
 * process running several panels in turn (the test suite, in band) kept every panel (and every
 * test file's module graph, through the observer's callback) reachable so. Here the metrics that
 * are read at scrape time come from prom-client's own modules; the two that watch the process
 * continuously are rebuilt with a stop(), under the same names, labels and buckets.
 */
const require = createRequire(import.meta.url);

/** prom-client's default metrics that only read the process when scraped (lib/defaultMetrics.js minus gc, eventLoopLag). */
const READ_AT_SCRAPE = [
  'processCpuTotal',
  'processStartTime',
  'osMemoryHeap',
  'processOpenFileDescriptors',
  'processMaxFileDescriptors',
  'processResources',
  'processHandles',
  'processRequests',
  'heapSizeAndUsed',
  'heapSpacesSizeAndUsed',
  'version',
] as const;

type DefaultMetric = (registry: Registry, config: Record<string, unknown>) => void;

const GC_BUCKETS = [0.001, 0.01, 0.1, 1, 2, 5];
const GC_KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};
/** Milliseconds between event-loop delay samples (prom-client's default precision). */
const EVENT_LOOP_RESOLUTION_MS = 10;

/** Registers the default metrics in `registry`; the returned function stops what watches the process. */
export function collectProcessMetrics(registry: Registry): () => void {
  for (const name of READ_AT_SCRAPE) {
    if (name === 'processResources' && typeof process.getActiveResourcesInfo !== 'function') continue;
    (require(`prom-client/lib/metrics/${name}.js`) as DefaultMetric)(registry, {});
  }
  const stopGc = gcDurations(registry);
  const stopLag = eventLoopLag(registry);
  return () => {
    stopGc();
    stopLag();
  };
}

function gcDurations(registry: Registry): () => void {
  const histogram = new Histogram({
    name: 'nodejs_gc_duration_seconds',
    help: 'Garbage collection duration by kind, one of major, minor, incremental or weakcb.',
    labelNames: ['kind'] as const,
    buckets: GC_BUCKETS,
    registers: [registry],
  });
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = GC_KINDS[(entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind ?? -1];
      if (kind) histogram.observe({ kind }, entry.duration / 1000);
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return () => observer.disconnect();
}

function eventLoopLag(registry: Registry): () => void {
  const delays = monitorEventLoopDelay({ resolution: EVENT_LOOP_RESOLUTION_MS });
  delays.enable();
  const gauge = (name: string, help: string) => new Gauge({ name, help, registers: [registry] });
  const summaries: [Gauge, () => number][] = [];
  // As prom-client: the first gauge's collect sets them all from the window since the last
  // scrape, then starts a new window (a registry collects its metrics in registration order).
  new Gauge({
    name: 'nodejs_eventloop_lag_seconds',
    help: 'Lag of event loop in seconds.',
    registers: [registry],
    async collect() {
      for (const [summary, read] of summaries) summary.set(read() / 1e9);
      delays.reset();
      const start = process.hrtime.bigint();
      await new Promise((resolve) => setImmediate(resolve));
      this.set(Number(process.hrtime.bigint() - start) / 1e9);
    },
  });
  summaries.push(
    [gauge('nodejs_eventloop_lag_min_seconds', 'The minimum recorded event loop delay.'), () => delays.min],
    [gauge('nodejs_eventloop_lag_max_seconds', 'The maximum recorded event loop delay.'), () => delays.max],
    [gauge('nodejs_eventloop_lag_mean_seconds', 'The mean of the recorded event loop delays.'), () => delays.mean],
    [
      gauge('nodejs_eventloop_lag_stddev_seconds', 'The standard deviation of the recorded event loop delays.'),
      () => delays.stddev,
    ],
    ...[50, 90, 99].map(
      (p) =>
        [
          gauge(`nodejs_eventloop_lag_p${p}_seconds`, `The ${p}th percentile of the recorded event loop delays.`),
          () => delays.percentile(p),
        ] as [Gauge, () => number],
    ),
  );
  return () => delays.disable();
}
