import { randomUUID } from 'node:crypto';
import { BackupJobs } from '../../apps/controller/src/backups/backup-jobs.js';
import { closeLinks, enrol, helloAs } from '../support/agent-link-client.js';
import { fixtures } from '../support/fixtures.js';
import { currentApplyJob } from '../support/node-queue.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';
import { waitFor } from '../support/wait-for.js';

/**
 * GET /api/metrics on a real panel (PostgreSQL, Redis, a node whose agent link is played by
 * hand): after requests, jobs, a counter batch and an apply report, every series the panel
 * promises is there with sane values, and route labels are patterns, never raw URLs.
 */

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The exposition format's samples (comments and blank lines skipped). */
function parse(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const found = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!found) throw new Error(`not an exposition line: ${line}`);
    const labels = Object.fromEntries(
      [...(found[2] ?? '').matchAll(/([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"/g)].map(([, key, value]) => [key!, value!]),
    );
    samples.push({ name: found[1]!, labels, value: Number(found[3]) });
  }
  return samples;
}

let t: TestPanel;
let token: string;
let scraper: string;
const f = fixtures(() => ({ t, token }));

async function scrape(as = scraper): Promise<Sample[]> {
  const response = await t.call('GET', 'metrics', { token: as });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parse(response.body as string);
}

function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  return samples.find(
    (sample) => sample.name === name && Object.entries(labels).every(([key, wanted]) => sample.labels[key] === wanted),
  )?.value;
}

beforeAll(async () => {
  t = await startTestPanel();
  token = await t.login();
  // A scraper uses an API token, as Prometheus would (bearer_token in its scrape config).
  scraper = (await f.createToken({ name: 'prometheus' })).token;
}, 60_000);

afterAll(async () => {
  closeLinks();
  await t?.stop();
});

test('without credentials a scrape is refused 401 {error, field}', async () => {
  const response = await t.call('GET', 'metrics');
  expect(response.status).toBe(401);
  expect(response.body).toEqual({ error: expect.any(String), field: '' });
});

test('a viewer may scrape', async () => {
  const viewer = await f.createUser('viewer');
  expect(value(await scrape(viewer.token), 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
});

test('HTTP durations by route pattern and status: no raw URL becomes a label', async () => {
  const ids = [randomUUID(), randomUUID(), randomUUID()];
  const calling = performance.now();
  for (const id of ids) expect((await t.call('GET', `clients/${id}`, { token })).status).toBe(404);
  // The requests ran one after the other inside this window: their durations add up to less.
  const window = (performance.now() - calling) / 1000;
  expect((await t.call('GET', `no/such/route/${ids[0]}`, { token })).status).toBe(404);
  const samples = await scrape();
  const text = JSON.stringify(samples);
  for (const id of ids) expect(text).not.toContain(id);
  expect(
    value(samples, 'warren_http_request_duration_seconds_count', {
      method: 'GET',
      route: '/api/clients/:id',
      status: '404',
    }),
  ).toBe(ids.length);
  expect(
    value(samples, 'warren_http_request_duration_seconds_count', { route: 'unmatched', status: '404' }),
  ).toBeGreaterThanOrEqual(1);
  const sum = value(samples, 'warren_http_request_duration_seconds_sum', {
    method: 'GET',
    route: '/api/clients/:id',
    status: '404',
  })!;
  expect(sum).toBeGreaterThan(0);
  expect(sum).toBeLessThanOrEqual(window);
  // Every route label is a pattern of the route table (or 'unmatched').
  const routes = new Set(
    samples
      .filter((sample) => sample.name.startsWith('warren_http_request_duration_seconds'))
      .map((sample) => sample.labels.route),
  );
  for (const route of routes) expect(route).toMatch(/^(unmatched|\/api\/[a-z0-9./:_-]*)$/);
});

test('nodes, agents, queues, applies and counter batches', async () => {
  const node = await f.createNode({ name: 'metrics-node' });
  // An interface on it: its desired state changes, and the apply job waits on its queue (no agent takes it yet).
  await f.createInterface({ nodeId: node.id });
  await currentApplyJob(t, node.id);
  let samples = await scrape();
  expect(value(samples, 'warren_node_queue_jobs', { node: node.id, state: 'waiting' })).toBeGreaterThanOrEqual(1);
  expect(value(samples, 'warren_queue_store_up')).toBe(1);
  expect(value(samples, 'warren_node_in_sync', { node: node.id })).toBe(0);
  expect(value(samples, 'warren_node_info', { node: node.id, name: 'metrics-node' })).toBe(1);
  expect(value(samples, 'warren_nodes', { state: 'offline' })).toBeGreaterThanOrEqual(1);
  const connectedBefore = value(samples, 'warren_agents_connected')!;

  const enrolled = await enrol(t, node.enrolment!.secret);
  const link = await helloAs(t, enrolled.credential);
  const sentAt = Date.now();
  link.send({ type: 'counters', seq: 1, at: sentAt - 1500, peers: [] });
  await link.next('ack');
  link.send({ type: 'counters', seq: 1, at: Date.now(), peers: [] });
  await link.next('ack');
  link.send({ type: 'applied', result: { revision: 1, ok: false, interfaces: [], durationMs: 3 } });

  samples = await waitFor('the apply report counted', async () => {
    const now = await scrape();
    return value(now, 'warren_node_applies_total', { node: node.id, outcome: 'failed' }) === 1 ? now : undefined;
  });
  expect(value(samples, 'warren_agents_connected')).toBe(connectedBefore + 1);
  expect(value(samples, 'warren_nodes', { state: 'behind' })).toBeGreaterThanOrEqual(1);
  expect(value(samples, 'warren_counter_batches_total', { outcome: 'recorded' })).toBe(1);
  expect(value(samples, 'warren_counter_batches_total', { outcome: 'duplicate' })).toBe(1);
  expect(value(samples, 'warren_counter_batch_lag_seconds_count')).toBe(1);
  const lag = value(samples, 'warren_counter_batch_lag_seconds_sum')!;
  // Stamped 1.5 s before it was sent, recorded between the sending and now.
  expect(lag).toBeGreaterThanOrEqual(1.5);
  expect(lag).toBeLessThanOrEqual(1.5 + (Date.now() - sentAt) / 1000);
  link.socket.close();
});

test("the controller's own jobs, history writes and the process", async () => {
  const jobs = t.panel.app.get(BackupJobs);
  expect((await jobs.wait(await jobs.start('backup', { trigger: 'api' }), 30_000)).state).toBe('completed');
  // The controller samples its own host every 2 s and writes history in batches every 2 s.
  const samples = await waitFor(
    'history written',
    async () => {
      const now = await scrape();
      return (value(now, 'warren_history_samples_written_total') ?? 0) > 0 ? now : undefined;
    },
    20_000,
  );
  const completed = samples.filter(
    (sample) => sample.name === 'warren_jobs_total' && sample.labels.outcome === 'completed',
  );
  expect(completed.reduce((sum, sample) => sum + sample.value, 0)).toBeGreaterThanOrEqual(1);
  expect(value(samples, 'warren_history_samples_buffered')).toBeGreaterThanOrEqual(0);
  expect(value(samples, 'process_resident_memory_bytes')).toBeGreaterThan(1024 * 1024);
  expect(value(samples, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
});
