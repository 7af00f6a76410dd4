import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { PanelMetrics } from './panel-metrics.js';

// A full collection on demand (Jest's process runs without --expose-gc).
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Collections nodejs_gc_duration_seconds has counted, all kinds. */
async function gcCount(metrics: PanelMetrics): Promise<number> {
  const text = await metrics.registry.getSingleMetricAsString('nodejs_gc_duration_seconds');
  return [...text.matchAll(/^nodejs_gc_duration_seconds_count\{[^}]*\} (\d+)$/gm)].reduce(
    (sum, match) => sum + Number(match[1]),
    0,
  );
}

/** Lets the GC observer's callback (queued after the collection) run. */
const observed = () => new Promise((resolve) => setTimeout(resolve, 50));

test('the default metrics watch the process until stop(), then nothing holds the panel', async () => {
  const metrics = new PanelMetrics();
  gc();
  await observed();
  const counted = await gcCount(metrics);
  expect(counted).toBeGreaterThan(0);
  expect(await metrics.registry.getSingleMetricAsString('process_cpu_user_seconds_total')).toMatch(/ \d/);

  metrics.stop();
  gc();
  await observed();
  expect(await gcCount(metrics)).toBe(counted);
});
