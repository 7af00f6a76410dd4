// Bulk extend at scale: the real panel in a child process, 100,000 expired clients (seeded in SQL)
// on two nodes' interfaces, extended by 30 days with one POST /api/clients/extend (one job), timed
// from the request to the job's completion; each node's desired revision must move exactly once.
// Baseline, same run: the same change one client at a time through PATCH /api/clients/{id}, for a
// sample of clients (BENCH_BULK_BASELINE), as a rate.
//
// Settings (environment): BENCH_BULK_CLIENTS (100000), BENCH_BULK_BASELINE (2000 clients patched
// one by one), BENCH_WRITE=0 (print only), DATABASE_URL / REDIS_URL (the machine's servers).
import os from 'node:os';
import { cleanupScope } from './lib/cleanup.js';
import { describeMachine } from './lib/machine.js';
import { apiClient, issueApiToken, reportPanelEnd, signIn } from './lib/panel-process.js';
import { cpuMsOf } from './lib/proc-stats.js';
import { fixed, markdownTable, textTable } from './lib/report.js';
import { benchDatabaseClient, publishReport, startBenchPanel } from './lib/bench-panel.js';
import { envNumber } from './lib/settings.js';

export const ID = 'bulk-extend-100k';
export const TITLE = 'Bulk extend: 100,000 clients in one job';

/** The smoke size (`npm run bench:smoke`, CI): every phase once, in seconds; nothing recorded. */
export const SMOKE = { BENCH_BULK_CLIENTS: '300', BENCH_BULK_BASELINE: '20' };

const DAY_MS = 86_400_000;

export function settingsFromEnv() {
  return {
    clients: envNumber('BENCH_BULK_CLIENTS', 100_000, 10),
    baseline: envNumber('BENCH_BULK_BASELINE', 2000, 1),
  };
}

export async function run({ writeDoc = true, docFile, command } = {}) {
  const settings = settingsFromEnv();
  const machine = describeMachine();
  const scope = cleanupScope('the bulk extend run (stopping the panel, dropping its database)');
  let panel;
  try {
    let database;
    ({ panel, database } = await startBenchPanel(scope, { tag: 'bulk', prefix: 'wbb' }));
    const api = apiClient(panel, 4);
    scope.add('http agent', () => api.close());
    await signIn(api);
    api.token = await issueApiToken(api, 'bench-bulk');
    const db = await benchDatabaseClient(scope, database);

    // Two nodes: the local one and a remote one (no agent: its deliveries wait, which is not measured).
    const remote = await api.expect(
      201,
      api.client.POST('/api/nodes', { body: { name: 'bench-remote', address: '192.0.2.10' } }),
    );
    const interfaces = [];
    for (const [i, nodeId] of [undefined, remote.id].entries()) {
      interfaces.push(
        await api.expect(
          201,
          api.client.POST('/api/interfaces', {
            body: {
              name: `wgbulk${i}`,
              listenPort: 51990 + i,
              subnet: `10.${80 + i * 4}.0.0/14`,
              endpointHost: 'vpn.bench.example',
              ...(nodeId ? { nodeId } : {}),
            },
          }),
        ),
      );
    }
    const nodeIds = interfaces.map((iface) => iface.nodeId);

    process.stderr.write(`bench: seeding ${settings.clients.toLocaleString('en-US')} expired clients with SQL…\n`);
    const expired = new Date(Date.now() - DAY_MS).toISOString();
    await db.query(
      `insert into clients (id, name, note, groups, quota_bytes, used_bytes, up_bytes, down_bytes, expires_at, device_limit,
                            rate_bits_per_sec, reset_cycle, start_on_first_use, duration_seconds, status, sub_id, owner_id,
                            created_at, updated_at)
       select gen_random_uuid(), 'bulk-' || n, '', '{bench}', 0, 0, 0, 0, $2::timestamptz, 1, 0, 'none', false, 0,
              'expired', md5(random()::text || n), (select id from users where role = 'owner' limit 1), now(), now()
         from generate_series(1, $1) n`,
      [settings.clients, expired],
    );
    await db.query(
      `insert into client_interfaces (client_id, interface_id)
       select id, case when row_number() over (order by id) % 2 = 0 then $1::uuid else $2::uuid end from clients`,
      [interfaces[0].id, interfaces[1].id],
    );
    await db.query('analyze clients');
    await db.query('analyze client_interfaces');

    // Baseline: the same extension, one client at a time (PATCH: the new expiry revives each).
    const sample = (await db.query(`select id, expires_at from clients order by id limit $1`, [settings.baseline]))
      .rows;
    const baselineStart = performance.now();
    for (const row of sample) {
      await api.expect(
        200,
        api.client.PATCH('/api/clients/{id}', {
          params: { path: { id: row.id } },
          body: { expiresAt: new Date(row.expires_at.getTime() + 30 * DAY_MS).toISOString() },
        }),
      );
    }
    const baselineMs = performance.now() - baselineStart;
    // The baseline's clients are put back as they were, so the job extends every client from the same state.
    await db.query(`update clients set expires_at = $1::timestamptz, status = 'expired' where id = any($2::uuid[])`, [
      expired,
      sample.map((row) => row.id),
    ]);

    const revisionsOf = async () =>
      Object.fromEntries(
        (await db.query(`select id, desired_revision from nodes where id = any($1::uuid[])`, [nodeIds])).rows.map(
          (row) => [row.id, Number(row.desired_revision)],
        ),
      );
    const before = await revisionsOf();
    const cpuBefore = cpuMsOf(panel.pid);
    process.stderr.write(`bench: extending all of them with one POST /api/clients/extend…\n`);
    const started = performance.now();
    const job = await api.expect(
      202,
      api.client.POST('/api/clients/extend', { body: { filter: { group: 'bench' }, days: 30 } }),
    );
    let view;
    for (;;) {
      view = await api.expect(200, api.client.GET('/api/jobs/{id}', { params: { path: { id: job.id } } }));
      if (view.state === 'completed' || view.state === 'failed') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const jobMs = performance.now() - started;
    const cpuMs = cpuMsOf(panel.pid) - cpuBefore;
    // The machine may be shared: its load says how much of the time was waiting for a core.
    const load = os.loadavg()[0];
    if (view.state !== 'completed') throw new Error(`the job failed: ${view.error}`);
    const after = await revisionsOf();
    const moved = nodeIds.map((id) => after[id] - before[id]);
    if (moved.some((n) => n !== 1)) throw new Error(`revisions moved ${moved.join(', ')} times, not once per node`);
    const [check] = (
      await db.query(
        `select count(*) filter (where status = 'active')::int as active,
                count(distinct expires_at)::int as expiries from clients`,
      )
    ).rows;
    if (check.active !== settings.clients || check.expiries !== 1)
      throw new Error(`after the job: ${JSON.stringify(check)} (every client active, one expiry expected)`);

    const perSecond = (count, ms) => (count / ms) * 1000;
    const rows = [
      [
        'one job (POST /api/clients/extend)',
        fixed(settings.clients),
        fixed(jobMs / 1000, 1),
        fixed(perSecond(settings.clients, jobMs)),
        moved.join(', '),
      ],
      [
        'one PATCH /api/clients/{id} per client (baseline)',
        fixed(settings.baseline),
        fixed(baselineMs / 1000, 1),
        fixed(perSecond(settings.baseline, baselineMs)),
        `${settings.baseline} each`,
      ],
    ];
    const header = ['how', 'clients', 'seconds', 'clients/s', 'revisions per node'];
    const text = [
      textTable(header, rows),
      `load average ${fixed(load, 1)}; controller CPU during the job: ${fixed(cpuMs / 1000, 1)} s; projected baseline for all ${settings.clients.toLocaleString('en-US')}: ${fixed(settings.clients / perSecond(settings.baseline, baselineMs) / 60, 1)} min`,
    ].join('\n');
    const markdown = [
      `### ${TITLE}`,
      '',
      `\`${command ?? 'npm run bench'}\` (BENCH_ONLY=bulk-extend): ${settings.clients.toLocaleString('en-US')} expired clients on two nodes' interfaces (seeded in SQL), extended by 30 days with one \`POST /api/clients/extend\` (\`filter: {group}\`), timed from the request to \`GET /api/jobs/{id}\` answering \`completed\` (polled every 100 ms). Every client is revived, so both nodes must change: each node's desired revision moved exactly once. Baseline, same run: the same change through \`PATCH /api/clients/{id}\`, one client at a time, for ${settings.baseline.toLocaleString('en-US')} clients.`,
      '',
      markdownTable(header, rows),
      '',
      `Controller CPU during the job: ${fixed(cpuMs / 1000, 1)} s. The baseline's rate would take ${fixed(settings.clients / perSecond(settings.baseline, baselineMs) / 60, 1)} min for all ${settings.clients.toLocaleString('en-US')} clients, and move each node's revision once per client.`,
      '',
      `Machine: ${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}, ${machine.platform}; the controller with Redis (BullMQ) and PostgreSQL on the same machine. Load average (1 min) at the job's end: ${fixed(load, 1)}${load > machine.cores ? ': the machine was shared and loaded, so the seconds are an upper bound (the controller itself used the CPU time above; the rest was waiting for PostgreSQL and for a core)' : ''}.`,
    ].join('\n');
    publishReport({ text, markdown }, { writeDoc, docFile, id: ID, title: TITLE });
    return { jobMs, baselineMs, moved };
  } catch (error) {
    if (panel) await reportPanelEnd(panel);
    throw error;
  } finally {
    await scope.run();
  }
}
