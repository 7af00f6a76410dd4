// Clients at scale: the real panel in a child process, 100,000 clients (each with its first device
// and account) created through POST /api/clients, then list pages measured under load and one at
// a time, against GET /api/auth/me (the auth + framework floor) measured the same way.
//
// Settings (environment): BENCH_CLIENTS (100000), BENCH_CREATE_CONCURRENCY (8), BENCH_DURATION (10)
// and BENCH_WARMUP (2) seconds per load run, BENCH_LIST_CONNECTIONS (8), BENCH_SEQUENTIAL (200
// requests per list, one at a time), BENCH_API_MINUTES (25: after that long creating through the
// API, the rest is inserted with SQL, once at least BENCH_API_MIN_CLIENTS (10000) came from the API),
// BENCH_WRITE=0 (print only), BENCH_KEEP_DATABASE=1 (leave the seeded database for EXPLAIN; its
// name is printed; drop it by hand), DATABASE_URL / REDIS_URL (the machine's servers).
// At 1,000,000: BENCH_SEED=batch (POST /api/clients/batch between two one-by-one samples of
// BENCH_ONE_BY_ONE_SAMPLE, BENCH_BATCH_SIZE a request), BENCH_REUSE_DATABASE=<kept database> (lists
// only, on the data of an earlier run), BENCH_DEEP=0 (no deep offset page nor cursor walk).
import { cleanupScope } from './lib/cleanup.js';
import { postgresVersion } from './lib/database.js';
import { loadFailures, measureWithCpu } from './lib/client-process.js';
import { describeMachine, machineCpuTicks } from './lib/machine.js';
import { apiClient, issueApiToken, reportPanelEnd, signIn } from './lib/panel-process.js';
import { backgroundBusy, cpuMsOf, machineBusyPercent, memoryOf, summarise } from './lib/proc-stats.js';
import { redisVersion } from './lib/redis-cleanup.js';
import { fixed, latencyMs as ms, markdownTable, mib, percent as pct, textTable } from './lib/report.js';
import { benchDatabaseClient, publishReport, startBenchPanel } from './lib/bench-panel.js';
import { envList, envNumber } from './lib/settings.js';
import { clientSpecColumns, insertClients } from './lib/sql-seed.js';

export const ID = 'clients-100k';
export const TITLE = 'Clients: 100,000 clients, creation and list pages';

/** The smoke size (`npm run bench:smoke`, CI): every phase once, in seconds; nothing recorded. */
export const SMOKE = {
  BENCH_CLIENTS: '100',
  BENCH_DURATION: '1',
  BENCH_WARMUP: '0',
  BENCH_LIST_CONNECTIONS: '2',
  BENCH_SEQUENTIAL: '10',
};

/** p99 of a list page: 50 ms at 100,000 clients; 100 ms for the first page at 1,000,000 (issue 27), set by run(). */
let TARGET_P99_MS = 50;
/** At 1,000,000 clients the first page under load must keep this share of the floor's requests/s. */
const FLOOR_SHARE_TARGET = 0.15;
/** A /14 (262,141 addresses) up to 250,000 clients, as the 100,000 runs had; a /12 (1,048,573) beyond. */
const subnetFor = (clients) => (clients > 250_000 ? '10.64.0.0/12' : '10.64.0.0/14');
let SUBNET = '10.64.0.0/14';
const PER_PAGE = 50;
/** Controller RSS is sampled every this many clients created through the API. */
const MEMORY_STEP = 10_000;

export function settingsFromEnv() {
  return {
    clients: envNumber('BENCH_CLIENTS', 100_000, 100),
    createConcurrency: envNumber('BENCH_CREATE_CONCURRENCY', 8, 1),
    durationSeconds: envNumber('BENCH_DURATION', 10, 1),
    warmupSeconds: envNumber('BENCH_WARMUP', 2, 0),
    connections: envNumber('BENCH_LIST_CONNECTIONS', 8, 1),
    sequential: envNumber('BENCH_SEQUENTIAL', 200, 10),
    apiMinutes: envNumber('BENCH_API_MINUTES', 25, 1),
    apiMinClients: envNumber('BENCH_API_MIN_CLIENTS', 10_000, 1),
    seed: envList('BENCH_SEED', 'api', ['api', 'batch'])[0],
    sample: envNumber('BENCH_ONE_BY_ONE_SAMPLE', 2000, 1),
    deep: envNumber('BENCH_DEEP', 1, 0) === 1,
    batchSize: envNumber('BENCH_BATCH_SIZE', 10_000, 1),
  };
}

// ---------------------------------------------------------------------------------------------
// The clients: deterministic variety, so the expected result of every filter is known up front.

/** 100 words, none inside another, none inside a note, a group or "client-": each matches ~1% of names. */
const WORDS = `aardvark albatross alligator anaconda armadillo avocet badger barracuda beaver bison bobcat buffalo
buzzard camel capybara caribou cassowary chameleon cheetah chinchilla cobra condor cormorant coyote crane cricket dingo
dolphin donkey dragonfly dugong eagle echidna egret elephant falcon ferret flamingo gazelle gecko gerbil gibbon giraffe
gopher gorilla grouse hamster hedgehog heron hippo hornet hyena iguana impala jackal jaguar kangaroo kestrel koala
lemming lemur leopard llama lobster macaque magpie manatee marmot meerkat mongoose moose narwhal nightingale ocelot
octopus opossum orangutan osprey ostrich otter panther pelican penguin platypus porcupine puffin quokka raccoon reindeer
rhino salamander scorpion seahorse squirrel starling tapir toucan vulture walrus wombat`.split(/\s+/);
const NOTES = [
  'paid by card',
  'family plan',
  'referred by a friend',
  'corporate account',
  'annual plan',
  'pays in crypto',
  'priority support',
  'moved from the old panel',
];
const GROUPS = ['retail', 'family', 'business', 'trial', 'partner'];
/** The list filters measured: a word of ~1% of names, a text nobody has, a group. */
const SEARCH_TERM = 'walrus';
const NO_MATCH_TERM = 'nosuchclient';
const GROUP_FILTER = 'business';
/** A group no client has: its page and total must not read every client (issue 27 item 5). */
const NO_GROUP = 'nosuchgroup';

function checkWords() {
  if (WORDS.length !== 100 || new Set(WORDS).size !== 100)
    throw new Error(`expected 100 distinct words, got ${WORDS.length}`);
  const others = [...NOTES, ...GROUPS, 'client-'];
  for (const word of WORDS) {
    const clash = [...WORDS.filter((w) => w !== word), ...others].find((text) => text.includes(word));
    if (clash) throw new Error(`word "${word}" occurs inside "${clash}": the search figures would be off`);
  }
}

/** A small seeded PRNG (mulberry32): client i always looks the same. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const GIB = 2 ** 30;
const DAY_MS = 86_400_000;

/** The creation body of client number i (0-based). */
function clientSpec(i, digits, now) {
  const rand = prng(i * 2654435761 + 12345);
  const word = WORDS[Math.floor(rand() * WORDS.length)];
  const spec = { name: `client-${String(i).padStart(digits, '0')} ${word}` };
  if (rand() < 0.3) spec.note = NOTES[Math.floor(rand() * NOTES.length)];
  const g = rand();
  if (g < 0.6) spec.groups = [GROUPS[Math.floor(rand() * GROUPS.length)]];
  else if (g < 0.8) {
    const first = Math.floor(rand() * GROUPS.length);
    spec.groups = [GROUPS[first], GROUPS[(first + 1 + Math.floor(rand() * (GROUPS.length - 1))) % GROUPS.length]];
  }
  // Half have a Telegram id; half of those above 2^31 (int8 territory), all exact as JSON numbers.
  if (rand() < 0.5) spec.telegramId = rand() < 0.5 ? 5_000_000_000 + i * 7 : 100_000_000 + i;
  if (rand() < 0.4) spec.quotaBytes = [10, 50, 100, 500][Math.floor(rand() * 4)] * GIB;
  if (rand() < 0.4) spec.expiresAt = new Date(now + (1 + Math.floor(rand() * 365)) * DAY_MS).toISOString();
  if (spec.quotaBytes && rand() < 0.5) spec.resetCycle = 'monthly';
  spec.deviceLimit = 1 + Math.floor(rand() * 3);
  return spec;
}

// ---------------------------------------------------------------------------------------------
// Steps.

/** Signs in and goes on with an API token, as an integration would; checks the panel takes it. */
async function signInWithToken(api) {
  await signIn(api);
  api.token = await issueApiToken(api, 'bench-clients');
  const me = await api.timed(() => api.client.GET('/api/auth/me'));
  if (me.status !== 200 || me.body.via !== 'token')
    throw new Error(`GET /api/auth/me with the API token: ${me.status} ${JSON.stringify(me.body)}`);
}

async function createInterface(api) {
  return api.expect(
    201,
    api.client.POST('/api/interfaces', {
      body: { name: 'wgbench', mode: 'standard', listenPort: 51999, subnet: SUBNET, endpointHost: 'vpn.bench.example' },
    }),
  );
}

function checkCreated(response, spec, iface) {
  const b = response.body;
  if (response.status !== 201) return `answered ${response.status}: ${JSON.stringify(b).slice(0, 500)}`;
  if (b?.name !== spec.name) return `name ${JSON.stringify(b?.name)} instead of ${JSON.stringify(spec.name)}`;
  if ((b.telegramId ?? undefined) !== spec.telegramId)
    return `telegramId ${b.telegramId} instead of ${spec.telegramId}`;
  if (b.devices?.length !== 1 || b.devices[0].accounts?.length !== 1)
    return `expected 1 device with 1 account, got ${JSON.stringify(b.devices)}`;
  if (b.devices[0].accounts[0].interfaceId !== iface.id) return 'the account is on another interface';
  return undefined;
}

/**
 * Creates clients [0, count) through the API with `concurrency` requests in flight, until all are
 * made or the time budget is spent (then at least `minimum` are made). Fails on the first non-201.
 */
async function createThroughApi({ api, iface, settings, digits, now, panel, memory, from = 0, to = settings.clients }) {
  const total = to;
  const budgetMs = settings.apiMinutes * 60_000;
  const completions = new Float64Array(to - from); // ms since start, in completion order
  const latencies = new Float64Array(to - from);
  let next = from;
  let done = 0;
  let failure;
  const started = performance.now();
  const mark = { cpu: cpuMsOf(panel.pid), own: process.cpuUsage(), machine: machineCpuTicks() };
  let lastReport = started;
  const worker = async () => {
    while (!failure && next < total) {
      const elapsed = performance.now() - started;
      if (elapsed > budgetMs && next - from >= settings.apiMinClients) return;
      const i = next++;
      const spec = clientSpec(i, digits, now);
      let response;
      try {
        response = await api.timed(() =>
          api.client.POST('/api/clients', { body: { ...spec, interfaceIds: [iface.id] } }),
        );
      } catch (error) {
        failure = `client ${i}: ${error.message}`;
        return;
      }
      const problem = checkCreated(response, spec, iface);
      if (problem) {
        failure = `POST /api/clients for client ${i} (${spec.name}): ${problem}`;
        return;
      }
      completions[done] = performance.now() - started;
      latencies[done] = response.ms;
      done++;
      // The memory curve: RSS every MEMORY_STEP clients, to see what grows with the number of clients.
      if (done % MEMORY_STEP === 0) memory.created.push({ clients: from + done, ...memoryOf(panel.pid) });
      const at = performance.now();
      if (at - lastReport > 10_000) {
        lastReport = at;
        const rate = done / ((at - started) / 1000);
        process.stderr.write(
          `bench: created ${done.toLocaleString('en-US')} of ${(to - from).toLocaleString('en-US')} through the API (${Math.round(rate)}/s)\n`,
        );
      }
    }
  };
  await Promise.all(Array.from({ length: settings.createConcurrency }, worker));
  if (failure) throw new Error(failure);
  const elapsedMs = performance.now() - started;
  const own = process.cpuUsage(mark.own);
  const machineBusy = machineBusyPercent(mark.machine, machineCpuTicks());
  const panelCpu = (100 * (cpuMsOf(panel.pid) - mark.cpu)) / elapsedMs;
  const clientCpu = (100 * (own.user + own.system)) / (elapsedMs * 1000);

  const deciles = [];
  for (let d = 0; d < 10; d++) {
    const from = Math.floor((d * done) / 10);
    const to = Math.floor(((d + 1) * done) / 10);
    if (to <= from) continue;
    const t0 = from === 0 ? 0 : completions[from - 1];
    const t1 = completions[to - 1];
    const lat = summarise(latencies.subarray(from, to));
    deciles.push({ from, to, rate: (to - from) / ((t1 - t0) / 1000), p50: lat.p50, p99: lat.p99 });
  }
  const all = summarise(latencies.subarray(0, done));
  return {
    count: done,
    elapsedMs,
    rate: done / (elapsedMs / 1000),
    p50: all.p50,
    p99: all.p99,
    max: all.max,
    deciles,
    cpu: {
      panel: panelCpu,
      client: clientCpu,
      rest: machineBusy === undefined ? undefined : Math.max(0, machineBusy - panelCpu - clientCpu),
    },
    budgetSpent: from + done < total,
  };
}

/**
 * Creates clients [from, to) through POST /api/clients/batch, `size` a request, named
 * `client-<number>` (the number padded to `digits`, as clientSpec names them) with nothing else
 * set: `varyBatchClients` gives them their spec afterwards. Returns the ids in number order and
 * each batch's time, to see whether creation slows down as the tables grow.
 */
async function createByBatch({ api, iface, from, to, size, digits, panel, memory }) {
  const ids = [];
  const batches = [];
  const started = performance.now();
  const mark = { cpu: cpuMsOf(panel.pid), own: process.cpuUsage(), machine: machineCpuTicks() };
  for (let start = from; start < to; start += size) {
    const count = Math.min(size, to - start);
    const response = await api.timed(() =>
      api.client.POST('/api/clients/batch', {
        body: { namePrefix: 'client-', count, start, digits, interfaceIds: [iface.id], deviceLimit: 3 },
      }),
    );
    if (response.status !== 201 || response.body.created !== count || response.body.ids?.length !== count)
      throw new Error(
        `POST /api/clients/batch from ${start}: ${response.status} ${JSON.stringify(response.body).slice(0, 300)}`,
      );
    ids.push(...response.body.ids);
    batches.push({ from: start, to: start + count, ms: response.ms });
    const made = start + count - from;
    if (made % (10 * size) === 0 || start + count === to) {
      memory.created.push({ clients: start + count, ...memoryOf(panel.pid) });
      process.stderr.write(
        `bench: created ${made.toLocaleString('en-US')} of ${(to - from).toLocaleString('en-US')} by batch (last ${fixed(count / (response.ms / 1000))}/s)\n`,
      );
    }
  }
  const elapsedMs = performance.now() - started;
  const own = process.cpuUsage(mark.own);
  const machineBusy = machineBusyPercent(mark.machine, machineCpuTicks());
  const panelCpu = (100 * (cpuMsOf(panel.pid) - mark.cpu)) / elapsedMs;
  const clientCpu = (100 * (own.user + own.system)) / (elapsedMs * 1000);
  // Deciles of the batches, in creation order: the rate and the batch latency of each tenth.
  const deciles = [];
  for (let d = 0; d < 10; d++) {
    const part = batches.slice(Math.floor((d * batches.length) / 10), Math.floor(((d + 1) * batches.length) / 10));
    if (!part.length) continue;
    const clients = part.reduce((n, b) => n + b.to - b.from, 0);
    const ms = part.reduce((n, b) => n + b.ms, 0);
    const lat = summarise(part.map((b) => b.ms));
    deciles.push({
      from: part[0].from,
      to: part[part.length - 1].to,
      rate: clients / (ms / 1000),
      p50: lat.p50,
      p99: lat.max,
    });
  }
  return {
    ids,
    count: to - from,
    batches: batches.length,
    size,
    elapsedMs,
    rate: (to - from) / (elapsedMs / 1000),
    deciles,
    cpu: {
      panel: panelCpu,
      client: clientCpu,
      rest: machineBusy === undefined ? undefined : Math.max(0, machineBusy - panelCpu - clientCpu),
    },
  };
}

/**
 * Gives clients made by batch (ids in number order from `from`) what clientSpec gives client i:
 * the word after the name, note, groups, Telegram id, quota, expiry, device limit, reset cycle, as
 * if each had come through POST /api/clients with its own body. 10,000 rows a statement.
 */
async function varyBatchClients({ db, ids, from, digits, now }) {
  const started = performance.now();
  const step = 10_000;
  for (let at = 0; at < ids.length; at += step) {
    const rows = [];
    for (let k = at; k < Math.min(ids.length, at + step); k++) {
      const spec = clientSpec(from + k, digits, now);
      rows.push({ id: ids[k], ...clientSpecColumns(spec) });
    }
    const { rowCount } = await db.query(
      `update clients c set name = x.name, note = x.note, groups = array(select jsonb_array_elements_text(x.groups)),
              telegram_id = x.telegram_id, quota_bytes = x.quota_bytes, expires_at = x.expires_at,
              device_limit = x.device_limit, reset_cycle = x.reset_cycle
         from jsonb_to_recordset($1::jsonb) as x(id uuid, name text, note text, groups jsonb, telegram_id bigint,
              quota_bytes bigint, expires_at timestamptz, device_limit int, reset_cycle text)
        where c.id = x.id`,
      [JSON.stringify(rows)],
    );
    if (rowCount !== rows.length) throw new Error(`varying batch clients: ${rowCount} rows updated of ${rows.length}`);
  }
  return { count: ids.length, seconds: (performance.now() - started) / 1000 };
}

/** Inserts clients [from, total) with SQL, shaped exactly as POST /api/clients makes them, in batches. */
async function seedWithSql({ db, iface, from, total, digits, now }) {
  const started = performance.now();
  const batch = 2000;
  for (let start = from; start < total; start += batch) {
    const end = Math.min(total, start + batch);
    const specs = [];
    for (let i = start; i < end; i++) specs.push(clientSpec(i, digits, now));
    await insertClients(db, { iface, subnet: SUBNET, specs });
    if ((end - from) % 20_000 === 0 || end === total) {
      process.stderr.write(
        `bench: inserted ${(end - from).toLocaleString('en-US')} of ${(total - from).toLocaleString('en-US')} with SQL\n`,
      );
    }
  }
  return { count: total - from, seconds: (performance.now() - started) / 1000 };
}

/**
 * A realistic spread of statuses and traffic, in SQL (the API cannot make traffic, and creation
 * refuses past expiry): by client number, 10% disabled, 5% expired (expiry 1..90 days ago),
 * 5% exhausted (used = quota); about 70% of the rest have used some traffic, below their quota.
 * Devices and accounts get the same counters (one of each per client). Then VACUUM ANALYZE.
 */
async function spreadStatuses(db) {
  const started = performance.now();
  await db.query('begin');
  await db.query(`create temporary table numbered on commit drop as
                    select id, (substring(name from '^client-(\\d+)'))::int as n from clients`);
  await db.query(
    `update clients c set status = 'disabled', updated_at = now() from numbered x where x.id = c.id and x.n % 20 in (0, 1)`,
  );
  await db.query(`update clients c set status = 'expired', expires_at = now() - (1 + x.n % 90) * interval '1 day', updated_at = now()
                    from numbered x where x.id = c.id and x.n % 20 = 2`);
  await db.query(`update clients c set quota_bytes = case when c.quota_bytes = 0 then ${10 * GIB} else c.quota_bytes end,
                         used_bytes = case when c.quota_bytes = 0 then ${10 * GIB} else c.quota_bytes end,
                         status = 'exhausted', updated_at = now()
                    from numbered x where x.id = c.id and x.n % 20 = 3`);
  await db.query(`update clients c set used_bytes = case when c.quota_bytes > 0 then least(c.quota_bytes - 1, (random() * c.quota_bytes)::bigint)
                                                         else (random() * ${200 * GIB})::bigint end
                    from numbered x where x.id = c.id and x.n % 20 > 3 and x.n % 10 < 7`);
  await db.query(
    `update clients set up_bytes = used_bytes / 5, down_bytes = used_bytes - used_bytes / 5 where used_bytes > 0`,
  );
  await db.query(
    `update devices d set up_bytes = c.up_bytes, down_bytes = c.down_bytes from clients c where c.id = d.client_id and c.used_bytes > 0`,
  );
  await db.query(
    `update accounts a set up_bytes = d.up_bytes, down_bytes = d.down_bytes from devices d where d.id = a.device_id and d.up_bytes > 0`,
  );
  await db.query('commit');
  for (const table of ['clients', 'devices', 'accounts', 'client_interfaces'])
    await db.query(`vacuum (analyze) ${table}`);
  const rows = (await db.query(`select status, count(*)::int as n from clients group by status order by status`)).rows;
  return {
    statuses: Object.fromEntries(rows.map((r) => [r.status, r.n])),
    seconds: (performance.now() - started) / 1000,
  };
}

/**
 * Makes the interface and the clients (by the API, by batch or the rest by SQL: BENCH_SEED), checks
 * every one is there exactly once, then spreads statuses and traffic.
 */
async function seed({ api, db, settings, digits, now, panel, memory }) {
  const ifaceView = await createInterface(api);
  const iface = { id: ifaceView.id, nodeId: ifaceView.nodeId };
  process.stderr.write(
    `bench: creating ${settings.clients.toLocaleString('en-US')} clients through POST /api/clients${settings.seed === 'batch' ? ' (and /batch)' : ''}, ${settings.createConcurrency} at a time…\n`,
  );
  let creation;
  let batch;
  let sqlSeed;
  if (settings.seed === 'batch') {
    // One by one at the start and at the end (the same request, on an empty and on a full
    // table: the creation rate at both sizes in one run), batches of 10,000 in between.
    const sample = Math.min(settings.sample, Math.floor(settings.clients / 4));
    const oneByOne = { api, iface, settings: { ...settings, apiMinutes: Infinity }, digits, now, panel, memory };
    const early = await createThroughApi({ ...oneByOne, from: 0, to: sample });
    process.stderr.write(`bench: creating by POST /api/clients/batch, ${settings.batchSize} a request…\n`);
    batch = await createByBatch({
      api,
      iface,
      from: sample,
      to: settings.clients - sample,
      size: settings.batchSize,
      digits,
      panel,
      memory,
    });
    const late = await createThroughApi({ ...oneByOne, from: settings.clients - sample, to: settings.clients });
    creation = { ...early, early, late };
    process.stderr.write('bench: giving the batch clients their specs (SQL)…\n');
    batch.varied = await varyBatchClients({ db, ids: batch.ids, from: sample, digits, now });
    batch.ids = undefined;
  } else creation = await createThroughApi({ api, iface, settings, digits, now, panel, memory });
  memory.afterApi = memoryOf(panel.pid);
  if (creation.count < settings.clients && !batch) {
    process.stderr.write(
      `bench: the ${settings.apiMinutes}-minute API budget is spent after ${creation.count.toLocaleString('en-US')} clients; inserting the rest with SQL…\n`,
    );
    sqlSeed = await seedWithSql({ db, iface, from: creation.count, total: settings.clients, digits, now });
  }

  // Everything is there, exactly once.
  const counts = (
    await db.query(`select (select count(*) from clients)::int as clients, (select count(*) from devices)::int as devices,
                                         (select count(*) from accounts)::int as accounts, (select count(*) from client_interfaces)::int as links,
                                         (select count(distinct ip) from accounts)::int as ips`)
  ).rows[0];
  for (const [name, value] of Object.entries(counts)) {
    if (value !== settings.clients) throw new Error(`after seeding: ${value} ${name}, expected ${settings.clients}`);
  }
  const one = await api.timed(() => getTarget(api, 'clients?perPage=1'));
  if (one.status !== 200 || one.body.total !== settings.clients)
    throw new Error(
      `GET /api/clients?perPage=1: ${one.status}, total ${one.body?.total}, expected ${settings.clients}`,
    );

  process.stderr.write('bench: spreading statuses and traffic with SQL, then VACUUM ANALYZE…\n');
  const spread = await spreadStatuses(db);
  return { creation, batch, sqlSeed, spread };
}

/**
 * A kept database (BENCH_REUSE_DATABASE): its clients as an earlier run (or SQL by hand) left
 * them. Statuses are spread here unless they already are (no client disabled), and the totals the
 * answers are checked against are counted from the tables, since its clients need not be
 * clientSpec's.
 */
async function keptData(db, clients, expected) {
  const [{ n }] = (await db.query('select count(*)::int as n from clients')).rows;
  if (n !== clients) throw new Error(`the reused database holds ${n} clients, BENCH_CLIENTS is ${clients}`);
  const [{ spread }] = (await db.query(`select exists (select 1 from clients where status = 'disabled') as spread`))
    .rows;
  if (!spread) {
    // Only the disabled tenth (the status the lists filter by), then ANALYZE: the full spread
    // rewrites every client several times, which at 1,000,000 on a busy machine takes too long.
    process.stderr.write('bench: disabling every tenth client with SQL, then ANALYZE…\n');
    await db.query(`update clients set status = 'disabled', updated_at = now()
                     where (substring(name from '^client-(\\d+)'))::int % 20 in (0, 1)`);
    for (const table of ['clients', 'devices', 'accounts', 'client_interfaces']) await db.query(`analyze ${table}`);
  }
  const [counted] = (
    await db.query(
      `select count(*) filter (where lower(name || ' ' || note) like $1)::int as search,
              count(*) filter (where groups @> array[$2::text])::int as "group" from clients`,
      [`%${SEARCH_TERM}%`, GROUP_FILTER],
    )
  ).rows;
  Object.assign(expected, counted);
  const rows = (await db.query(`select status, count(*)::int as n from clients group by status order by status`)).rows;
  return { spread: { statuses: Object.fromEntries(rows.map((r) => [r.status, r.n])), seconds: 0 } };
}

/** The list requests measured, each with what a correct answer must look like. */
function listTargets({ total, expected, statuses, ifaceId }) {
  const deepPage = Math.max(1, Math.floor(total / PER_PAGE) - 1);
  const t = (key, label, query, expectTotal, extra = {}) => ({
    key,
    label,
    path: `clients?${query}`,
    expectTotal,
    ...extra,
  });
  return [
    t('first', 'first page', `perPage=${PER_PAGE}`, total),
    t(
      'deep',
      `deep page (page ${deepPage}, offset ${((deepPage - 1) * PER_PAGE).toLocaleString('en-US')})`,
      `perPage=${PER_PAGE}&page=${deepPage}`,
      total,
      { page: deepPage },
    ),
    t('search', `search "${SEARCH_TERM}" (~1% of names)`, `perPage=${PER_PAGE}&search=${SEARCH_TERM}`, expected.search),
    t('nomatch', `search "${NO_MATCH_TERM}" (no match)`, `perPage=${PER_PAGE}&search=${NO_MATCH_TERM}`, 0),
    t('status', 'status=disabled', `perPage=${PER_PAGE}&status=disabled`, statuses.disabled ?? 0),
    t('group', `group=${GROUP_FILTER}`, `perPage=${PER_PAGE}&group=${GROUP_FILTER}`, expected.group),
    t('nogroup', `group=${NO_GROUP} (nobody has it)`, `perPage=${PER_PAGE}&group=${NO_GROUP}`, 0),
    t('iface', 'interfaceId= (every client)', `perPage=${PER_PAGE}&interfaceId=${ifaceId}`, total),
    t('traffic', 'sort=traffic', `perPage=${PER_PAGE}&sort=traffic`, total, { sortedBy: 'usedBytes' }),
  ];
}

/**
 * The deep page again, reached by cursor: walks the list to that offset with nextCursor (200 rows
 * a step) and measures the page after it, the same rows as the offset page.
 */
async function cursorTarget(api, deep) {
  const offset = (deep.page - 1) * PER_PAGE;
  let cursor;
  for (let at = 0; at < offset;) {
    const step = Math.min(200, offset - at);
    const response = await api.timed(() =>
      api.client.GET('/api/clients', { params: { query: { perPage: step, ...(cursor ? { cursor } : {}) } } }),
    );
    if (response.status !== 200 || !response.body.nextCursor)
      throw new Error(`walking to offset ${offset} by cursor: ${response.status} at ${at}`);
    cursor = response.body.nextCursor;
    at += step;
  }
  return {
    key: 'cursor',
    label: `deep page by cursor (after offset ${offset.toLocaleString('en-US')})`,
    // At small sizes the deep page is the first: no cursor to follow.
    path: `clients?perPage=${PER_PAGE}${cursor ? `&cursor=${cursor}` : ''}`,
    expectTotal: deep.expectTotal,
    page: deep.page,
  };
}

function checkList(target, response) {
  const b = response.body;
  if (response.status !== 200) return `answered ${response.status}: ${JSON.stringify(b).slice(0, 300)}`;
  if (b.total !== target.expectTotal) return `total ${b.total}, expected ${target.expectTotal}`;
  const page = target.page ?? 1;
  const want = Math.max(0, Math.min(PER_PAGE, target.expectTotal - (page - 1) * PER_PAGE));
  if (b.items?.length !== want) return `${b.items?.length} items, expected ${want}`;
  if (target.sortedBy) {
    for (let i = 1; i < b.items.length; i++) {
      if (b.items[i - 1][target.sortedBy] < b.items[i][target.sortedBy])
        return `items not sorted by ${target.sortedBy} descending`;
    }
  }
  return undefined;
}

/**
 * GET /api/<path> through the typed client, for a target's path relative to /api (the load runs
 * use the same path as a URL): `auth/me`, or `clients?<query>`.
 */
function getTarget(api, path) {
  if (path === 'auth/me') return api.client.GET('/api/auth/me');
  const [route, search = ''] = path.split('?');
  if (route !== 'clients') throw new Error(`getTarget: no typed request for ${path}`);
  return api.client.GET('/api/clients', { params: { query: Object.fromEntries(new URLSearchParams(search)) } });
}

/**
 * One autocannon run (child process) with CPU accounting for the panel (`cpu.server`), the client
 * and the rest. Raw HTTP, not the typed client: autocannon drives its own sockets.
 */
function loadRun(url, token, settings, panelPid) {
  return measureWithCpu(
    {
      url,
      headers: { authorization: `Bearer ${token}` },
      connections: settings.connections,
      pipelining: 1,
      warmupSeconds: settings.warmupSeconds,
      durationSeconds: settings.durationSeconds,
    },
    { serverCpuMs: () => cpuMsOf(panelPid) },
  );
}

/** `count` requests one after another (after 10 unrecorded ones): latency with nothing else in flight. */
async function sequentialRun(api, path, count, check) {
  const request = () => getTarget(api, path);
  for (let i = 0; i < 10; i++) await api.timed(request);
  const times = [];
  for (let i = 0; i < count; i++) {
    const response = await api.timed(request);
    if (response.status !== 200) throw new Error(`GET /api/${path} answered ${response.status} (sequential run)`);
    if (check && i === 0) {
      const problem = check(response);
      if (problem) throw new Error(`GET /api/${path} (sequential run): ${problem}`);
    }
    times.push(response.ms);
  }
  const { p50, p90, p99, max } = summarise(times);
  return { count, p50, p90, p99, max };
}

// ---------------------------------------------------------------------------------------------

export async function run({ writeDoc = true, docFile, command } = {}) {
  const settings = settingsFromEnv();
  TARGET_P99_MS = settings.clients >= 1_000_000 ? 100 : 50;
  SUBNET = subnetFor(settings.clients);
  const id = settings.clients === 100_000 ? ID : `clients-${settings.clients}`;
  const title =
    settings.clients === 100_000 ? TITLE : `Clients: ${fixed(settings.clients)} clients, creation and list pages`;
  checkWords();
  const background = await backgroundBusy();
  const machine = describeMachine();
  const digits = Math.max(5, String(settings.clients - 1).length);
  const now = Date.now();

  // What every filter must return, from the specs themselves.
  const expected = { search: 0, group: 0 };
  for (let i = 0; i < settings.clients; i++) {
    const s = clientSpec(i, digits, now);
    if (`${s.name} ${s.note ?? ''}`.toLowerCase().includes(SEARCH_TERM)) expected.search++;
    if (s.groups?.includes(GROUP_FILTER)) expected.group++;
  }

  const scope = cleanupScope('the clients run (stopping the panel, dropping its database)');
  let panel;
  try {
    // The clients live on the local node's interface: no agent may build it on this host.
    let database;
    ({ panel, database } = await startBenchPanel(scope, { tag: 'clients', prefix: 'wbc' }));
    const memory = { start: memoryOf(panel.pid), created: [], lists: [] };
    const api = apiClient(panel, Math.max(settings.createConcurrency, 4));
    scope.add('http agent', () => api.close());
    await signInWithToken(api);
    const db = await benchDatabaseClient(scope, database);
    const reused = database.reused
      ? await keptData(db, settings.clients, expected)
      : await seed({ api, db, settings, digits, now, panel, memory });
    const { creation, batch, sqlSeed, spread } = reused;
    const sizes = (
      await db.query(`select pg_size_pretty(pg_database_size(current_database())) as database,
                                          pg_size_pretty(pg_total_relation_size('clients')) as clients,
                                          pg_size_pretty(pg_total_relation_size('accounts')) as accounts`)
    ).rows[0];
    memory.seeded = memoryOf(panel.pid);

    const [{ id: ifaceId }] = (await db.query('select id from interfaces order by created_at limit 1')).rows;
    let targets = listTargets({ total: settings.clients, expected, statuses: spread.statuses, ifaceId });
    if (settings.deep)
      targets.splice(
        2,
        0,
        await cursorTarget(
          api,
          targets.find((t) => t.key === 'deep'),
        ),
      );
    // Without the deep pages (BENCH_DEEP=0): at 1,000,000 the cursor walk alone is 5,000 requests.
    else targets = targets.filter((t) => t.key !== 'deep');
    for (const target of targets) {
      const response = await api.timed(() => getTarget(api, target.path));
      const problem = checkList(target, response);
      if (problem) throw new Error(`GET /api/${target.path}: ${problem}`);
    }

    const baseline = { key: 'baseline', label: 'baseline: GET /api/auth/me', path: 'auth/me' };
    const all = [baseline, ...targets];
    const loaded = {};
    const problems = [];
    for (const target of all) {
      process.stderr.write(
        `bench: ${target.label}: ${settings.warmupSeconds}s warm-up + ${settings.durationSeconds}s at ${settings.connections} connections…\n`,
      );
      const result = await loadRun(`${panel.api}/${target.path}`, api.token, settings, panel.pid);
      problems.push(...loadFailures(target.label, result));
      loaded[target.key] = result;
      memory.lists.push({ label: target.label, ...memoryOf(panel.pid) });
    }
    if (problems.length) throw new Error(`responses other than 200 during the benchmark:\n  ${problems.join('\n  ')}`);
    const sequential = {};
    for (const target of all) {
      process.stderr.write(`bench: ${target.label}: ${settings.sequential} requests one at a time…\n`);
      sequential[target.key] = await sequentialRun(
        api,
        target.path,
        settings.sequential,
        target.expectTotal === undefined ? undefined : (r) => checkList(target, r),
      );
    }
    memory.afterLists = memoryOf(panel.pid);
    if (!panel.alive()) throw new Error(`the panel exited during the benchmark:\n${panel.tail()}`);

    const report = render({
      settings,
      machine,
      command,
      creation,
      batch,
      background,
      title,
      sqlSeed,
      spread,
      sizes,
      expected,
      targets: all,
      loaded,
      sequential,
      memory,
      postgres: await postgresVersion().catch(() => undefined),
      redis: await redisVersion(),
    });
    publishReport(report, { writeDoc, docFile, id, title });
    return { creation, loaded, sequential, memory };
  } catch (error) {
    if (panel) await reportPanelEnd(panel);
    throw error;
  } finally {
    await scope.run();
  }
}

// ---------------------------------------------------------------------------------------------
// Report.

/** Milliseconds of CPU (panel process + rest of the machine) per request, from the load run's CPU shares. */
const cpuPerRequest = (r) =>
  r.cpu.rest === undefined || !r.requestsPerSecond
    ? undefined
    : (10 * (r.cpu.server + r.cpu.rest)) / r.requestsPerSecond;
const verdict = (p99) => (p99 < TARGET_P99_MS ? 'pass' : '**FAIL**');

function render({
  settings,
  machine,
  command,
  creation,
  batch,
  background,
  title,
  sqlSeed,
  spread,
  sizes,
  expected,
  targets,
  loaded,
  sequential,
  memory,
  postgres,
  redis,
}) {
  const N = settings.clients;
  const base = loaded.baseline;
  const baseSeq = sequential.baseline;
  const lists = targets.filter((t) => t.key !== 'baseline');

  // A reused database (BENCH_REUSE_DATABASE) was seeded by an earlier run: no creation figures.
  if (!creation) creation = { deciles: [{ rate: 1 }], count: N };
  const fresh = creation.early !== undefined || creation.elapsedMs !== undefined;
  const creationHeader = ['clients (in creation order)', 'clients/s', 'latency p50', 'latency p99'];
  const creationRows = creation.deciles.map((d, index) => [
    `${fixed(d.from + 1)}–${fixed(d.to)}${index === 0 ? ' (first 10%)' : index === creation.deciles.length - 1 ? ' (last 10%)' : ''}`,
    fixed(d.rate),
    ms(d.p50),
    ms(d.p99),
  ]);
  creationRows.push([
    `**all ${fixed(creation.count)}**`,
    `**${fixed(creation.rate)}**`,
    `**${ms(creation.p50)}**`,
    `**${ms(creation.p99)}**`,
  ]);
  const first = creation.deciles[0];
  const last = creation.deciles[creation.deciles.length - 1];
  const trend = last.rate / first.rate;
  if (batch) {
    // By batch: the batch deciles, and the one-by-one samples on the empty and on the full table.
    creationHeader.splice(2, 2, 'request p50', 'slowest request');
    creationRows.splice(0, creationRows.length);
    creationRows.push(
      [
        `1–${fixed(creation.early.count)}, one by one (empty table)`,
        fixed(creation.early.rate),
        ms(creation.early.p50),
        `${ms(creation.early.p99)} (p99)`,
      ],
      ...batch.deciles.map((d, index) => [
        `${fixed(d.from + 1)}–${fixed(d.to)} by batch${index === 0 ? ' (first 10%)' : index === batch.deciles.length - 1 ? ' (last 10%)' : ''}`,
        fixed(d.rate),
        ms(d.p50),
        ms(d.p99),
      ]),
      [
        `${fixed(N - creation.late.count + 1)}–${fixed(N)}, one by one (full table)`,
        fixed(creation.late.rate),
        ms(creation.late.p50),
        `${ms(creation.late.p99)} (p99)`,
      ],
    );
  }
  const batchTrend = batch ? batch.deciles[batch.deciles.length - 1].rate / batch.deciles[0].rate : undefined;
  const lateTrend = batch ? creation.late.rate / creation.early.rate : undefined;
  const created = batch ? N : creation.count;
  const firstShare = loaded.first.requestsPerSecond / base.requestsPerSecond;

  const loadHeader = [
    'request',
    'requests/s',
    'p50',
    'p99',
    `p99 < ${TARGET_P99_MS} ms`,
    'p50 above floor',
    'share of floor (requests/s)',
    'panel CPU',
    'client CPU',
    'rest (PostgreSQL…)',
    'CPU per request (panel + rest)',
  ];
  const loadRow = (t, markdown) => {
    const r = loaded[t.key];
    return [
      markdown
        ? t.key === 'baseline'
          ? `*${t.label}*`
          : `\`${t.path.replace(/^clients/, '').replace(/cursor=[^&]+/, 'cursor=…')}\` ${t.label}`
        : t.label,
      fixed(r.requestsPerSecond),
      ms(r.latency.p50),
      ms(r.latency.p99),
      t.key === 'baseline' ? '–' : markdown ? verdict(r.latency.p99) : verdict(r.latency.p99).replace(/\*/g, ''),
      t.key === 'baseline' ? '–' : `+${ms(r.latency.p50 - base.latency.p50)}`,
      t.key === 'baseline' ? '–' : `${fixed((100 * r.requestsPerSecond) / base.requestsPerSecond, 1)}%`,
      pct(r.cpu.server),
      pct(r.cpu.client),
      pct(r.cpu.rest),
      cpuPerRequest(r) === undefined
        ? '–'
        : `${ms(cpuPerRequest(r))} (${ms((10 * r.cpu.server) / r.requestsPerSecond)} + ${ms((10 * r.cpu.rest) / r.requestsPerSecond)})`,
    ];
  };
  const seqHeader = ['request', 'p50', 'p90', 'p99', 'max', `p99 < ${TARGET_P99_MS} ms`, 'p50 above floor'];
  const seqRow = (t, markdown) => {
    const r = sequential[t.key];
    return [
      markdown
        ? t.key === 'baseline'
          ? `*${t.label}*`
          : `\`${t.path.replace(/^clients/, '').replace(/cursor=[^&]+/, 'cursor=…')}\` ${t.label}`
        : t.label,
      ms(r.p50),
      ms(r.p90),
      ms(r.p99),
      ms(r.max),
      t.key === 'baseline' ? '–' : markdown ? verdict(r.p99) : verdict(r.p99).replace(/\*/g, ''),
      t.key === 'baseline' ? '–' : `+${ms(r.p50 - baseSeq.p50)}`,
    ];
  };
  const loadFails = lists.filter((t) => loaded[t.key].latency.p99 >= TARGET_P99_MS);
  const seqFails = lists.filter((t) => sequential[t.key].p99 >= TARGET_P99_MS);
  const memHeader = ['when', 'RSS', 'peak RSS so far (VmHWM)'];
  const memRows = [
    ['after start (signed in, nothing created)', mib(memory.start.rss), mib(memory.start.peak)],
    ...(fresh ? [] : [['(a kept database: nothing created in this run)', '–', '–']]),
    ...memory.created
      .filter((m) => m.clients < created)
      .map((m) => [`after creating ${fixed(m.clients)} clients through the API`, mib(m.rss), mib(m.peak)]),
    ...(fresh
      ? [
          [
            `after creating ${fixed(created)} clients through the API`,
            mib(memory.afterApi.rss),
            mib(memory.afterApi.peak),
          ],
        ]
      : []),
    [`seeded (${fixed(N)} clients, statuses spread)`, mib(memory.seeded.rss), mib(memory.seeded.peak)],
    ...memory.lists.map((m) => [`after the load run of ${m.label}`, mib(m.rss), mib(m.peak)]),
    ['after all list runs', mib(memory.afterLists.rss), mib(memory.afterLists.peak)],
  ];
  const statusText = Object.entries(spread.statuses)
    .map(([s, n]) => `${s} ${fixed(n)} (${fixed((100 * n) / N, 1)}%)`)
    .join(', ');

  const summary = (set, kind) =>
    set.length === 0
      ? `every list request passes (p99 < ${TARGET_P99_MS} ms) ${kind}`
      : `${set.map((t) => t.label).join('; ')} miss${set.length === 1 ? 'es' : ''} it ${kind}`;
  const text = [
    `Machine before the run: other processes kept it ${pct(background)} busy (of ${machine.cores * 100}%)`,
    batch
      ? `Creation by POST /api/clients/batch: ${fixed(batch.count)} clients in ${batch.batches} requests, ${fixed(batch.elapsedMs / 1000, 1)} s = ${fixed(batch.rate)} clients/s; first 10% ${fixed(batch.deciles[0].rate)}/s, last 10% ${fixed(batch.deciles[batch.deciles.length - 1].rate)}/s (${fixed(batchTrend * 100)}%); one by one ${fixed(creation.early.rate)}/s on the empty table, ${fixed(creation.late.rate)}/s at ${fixed(N)} (${fixed(lateTrend * 100)}%); specs given with SQL in ${fixed(batch.varied.seconds, 1)} s`
      : '',
    `First page under load: ${fixed(firstShare * 100, 1)}% of the floor's requests/s (target ≥ ${FLOOR_SHARE_TARGET * 100}% at 1,000,000)`,
    !fresh
      ? 'A kept database (BENCH_REUSE_DATABASE): lists only'
      : `Creation through POST /api/clients: ${fixed(creation.count)} clients in ${fixed(creation.elapsedMs / 1000, 1)} s = ${fixed(creation.rate)} clients/s at concurrency ${settings.createConcurrency}; p50 ${ms(creation.p50)}, p99 ${ms(creation.p99)}; first 10% ${fixed(first.rate)}/s, last 10% ${fixed(last.rate)}/s`,
    sqlSeed
      ? `Remaining ${fixed(sqlSeed.count)} clients inserted with SQL in ${fixed(sqlSeed.seconds, 1)} s`
      : batch || !fresh
        ? ''
        : `All ${fixed(N)} clients through the API`,
    '',
    fresh
      ? textTable(
          creationHeader,
          creationRows.map((r) => r.map((c) => String(c).replace(/\*/g, ''))),
        )
      : '',
    '',
    `List pages under load (${settings.connections} connections, ${settings.durationSeconds} s):`,
    textTable(
      loadHeader,
      targets.map((t) => loadRow(t, false)),
    ),
    '',
    `List pages one at a time (${settings.sequential} requests each):`,
    textTable(
      seqHeader,
      targets.map((t) => seqRow(t, false)),
    ),
    '',
    textTable(memHeader, memRows),
    '',
    `Target p99 < ${TARGET_P99_MS} ms: ${summary(loadFails, `under ${settings.connections} connections`)}; ${summary(seqFails, 'one at a time')}.`,
  ].join('\n');

  const envShown = `BENCH_CLIENTS=${N} BENCH_CREATE_CONCURRENCY=${settings.createConcurrency} BENCH_DURATION=${settings.durationSeconds} BENCH_WARMUP=${settings.warmupSeconds} BENCH_LIST_CONNECTIONS=${settings.connections} BENCH_SEQUENTIAL=${settings.sequential}`;
  const markdown = `
## ${title}

The real panel (\`node dist/apps/controller/src/main.js\`, as \`npm start\` runs it) in a child process on a fresh database: one interface (\`${SUBNET}\`, ${SUBNET.endsWith('/12') ? '1,048,573' : '262,141'} addresses) on the local node, then ${fixed(N)} clients${sqlSeed ? '' : ', every one'} created through \`POST /api/clients\` with an API token, each with its first device and one account (key pair, preshared key, address). Then \`GET /api/clients\` pages are measured under load and one at a time, next to \`GET /api/auth/me\` with the same token: the floor of auth guard + NestJS + fastify + one PostgreSQL look-up, so the list's own cost is the difference.

- Command: \`${command ?? 'node bench/run.js'}\` with \`BENCH_ONLY=clients\` (${envShown})
- Date: ${new Date().toISOString()}
- Machine: ${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB RAM, ${machine.platform}
- Software: Node ${machine.node}, PostgreSQL ${postgres ?? 'unknown'} and Redis ${redis ?? 'unknown'} on the same machine (TCP to 127.0.0.1, default server settings); plain HTTP (\`WARREN_TLS=off\`), \`WARREN_LOG_LEVEL=error\`
- Data: ${fixed(N)} clients, ${fixed(N)} devices, ${fixed(N)} accounts; database ${sizes.database} (clients table with indexes ${sizes.clients}, accounts ${sizes.accounts})

${
  fresh
    ? `### Creation through the API

${
  batch
    ? `**By batch** (BENCH_SEED=batch): the first and the last ${fixed(creation.early.count)} clients one by one through \`POST /api/clients\` (${settings.createConcurrency} in flight), the ${fixed(batch.count)} between them through ${batch.batches} \`POST /api/clients/batch\` requests of ${fixed(batch.size)} (one at a time, names \`client-NNNNNNN\`, every answer checked: 201, the count, the ids). Then one SQL pass gave each batch client what its own \`POST /api/clients\` body would have set (word after the name, note, groups, Telegram id, quota, expiry, device limit, reset cycle) in ${fixed(batch.varied.seconds, 1)} s. CPU during the batches (per cent of one core): panel ${pct(batch.cpu.panel)}, bench ${pct(batch.cpu.client)}, rest of the machine (PostgreSQL…) ${pct(batch.cpu.rest)}.

**Creation rate at the end against the start:** by batch, the last 10% ran at ${fixed(batchTrend * 100)}% of the first 10% (${fixed(batch.deciles[0].rate)} → ${fixed(batch.deciles[batch.deciles.length - 1].rate)} clients/s); one by one, ${fixed(creation.late.rate)} clients/s with ${fixed(N - creation.late.count)} clients in the table against ${fixed(creation.early.rate)} on the empty table (${fixed(lateTrend * 100)}%).

`
    : ''
}Other processes kept the machine ${pct(background)} busy (of ${machine.cores * 100}%) in the 3 s before the run.

${fixed(creation.count)} \`POST /api/clients\` requests, ${settings.createConcurrency} in flight at a time, over HTTP keep-alive from the bench process; every response was a 201 with the client, its device and its account (checked one by one). Names are \`client-NNNNN <word>\` (100 words, ~1% each), ~30% have a note, ~80% one or two of 5 groups, half a \`telegramId\` (half of those above 2^31), ~40% a quota (10–500 GiB, half of them with a monthly reset cycle), ~40% a future \`expiresAt\`, device limit 1–3.${sqlSeed ? `\n\n**Only the first ${fixed(creation.count)} clients came through the API**: the ${settings.apiMinutes}-minute budget for API creation was spent, so the other ${fixed(sqlSeed.count)} were inserted with direct SQL in ${fixed(sqlSeed.seconds, 1)} s, shaped exactly as the API makes them (client, device \`device-1\`, interface link, account with a fresh key pair and preshared key from \`libs/wireguard\`, the next addresses after the interface's allocation cursor, which then moves past them).` : ''}

| ${creationHeader.join(' | ')} |
| ${creationHeader.map(() => '---').join(' | ')} |
${creationRows.map((r) => `| ${r.join(' | ')} |`).join('\n')}

**${fixed(creation.rate)} clients/s overall** (${fixed(creation.elapsedMs / 1000, 1)} s for ${fixed(creation.count)}); the last 10% ran at ${fixed(trend * 100)}% of the rate of the first 10% (${fixed(first.rate)} → ${fixed(last.rate)} clients/s)${trend < 0.8 ? ': **creation slows down as the tables grow**' : trend > 1.1 ? ' (the start includes connection and JIT warm-up)' : ': no material slow-down with table size'}. CPU during creation (per cent of one core, the machine has ${machine.cores * 100}%): panel ${pct(creation.cpu.panel)}, bench client ${pct(creation.cpu.client)}, rest of the machine (PostgreSQL, Redis) ${pct(creation.cpu.rest)}.

Checked after seeding: \`GET /api/clients?perPage=1\` answers \`total: ${fixed(N)}\`; the database holds exactly ${fixed(N)} clients, devices, accounts, interface links and distinct addresses.

### Statuses and traffic (SQL, after creation)

The API cannot create traffic or a past expiry, so after creation one SQL pass gives the data a realistic spread: by client number, 10% \`disabled\`, 5% \`expired\` (expiry moved 1–90 days into the past), 5% \`exhausted\` (used = quota, 10 GiB where there was none); about 70% of the rest get traffic below their quota (0–200 GiB when unlimited), mirrored on their device and account. Result: ${statusText}. Then \`VACUUM (ANALYZE)\` on clients, devices, accounts and client_interfaces (what autovacuum does on its own shortly after a bulk load). The panel's 30-second expiry/reset-cycle job keeps running throughout, as in production.

`
    : `### A kept database

The clients were created and spread by an earlier run of this bench (BENCH_KEEP_DATABASE=1), on the code of that run; this run started the panel of this build on that database (BENCH_REUSE_DATABASE, its migrations applied on start) and measured the lists only. Statuses: ${statusText}. Other processes kept the machine ${pct(background)} busy (of ${machine.cores * 100}%) in the 3 s before the run.

`
}### List pages under load

autocannon in a child process, ${settings.connections} connections, pipelining 1, ${settings.warmupSeconds} s warm-up then ${settings.durationSeconds} s measured per request, \`Authorization: Bearer wrn_…\`; each request's answer was checked once beforehand (status 200, \`total\` equal to what the seeded data must give, a full page, order where sorted) and every measured response was a 200 (the run fails otherwise). "p50 above floor" is the p50 minus the baseline's.

${markdownTable(
  loadHeader,
  targets.map((t) => loadRow(t, true)),
)}

### List pages one at a time

${settings.sequential} requests per row, one after another (after 10 unrecorded), from the bench process over a keep-alive connection: the latency with nothing else in flight.

${markdownTable(
  seqHeader,
  targets.map((t) => seqRow(t, true)),
)}

**${N >= 1_000_000 ? `List pages p99 under ${TARGET_P99_MS} ms at ${fixed(N)} clients (issue 27 asks it of the first page one at a time)` : `Target "list pages p99 under ${TARGET_P99_MS} ms at 100,000 clients"${N === 100_000 ? '' : ` (this run: ${fixed(N)} clients, so it does not count as the target measurement)`}`}:** ${
    loadFails.length === 0
      ? `**met under ${settings.connections} concurrent connections** (worst p99 ${ms(Math.max(...lists.map((t) => loaded[t.key].latency.p99)))}, ${lists.reduce((a, t) => (loaded[t.key].latency.p99 > loaded[a.key].latency.p99 ? t : a)).label})`
      : `**missed under ${settings.connections} concurrent connections** by ${loadFails.map((t) => `${t.label} (p99 ${ms(loaded[t.key].latency.p99)})`).join(', ')}`
  }; ${
    seqFails.length === 0
      ? `**met one at a time** (worst p99 ${ms(Math.max(...lists.map((t) => sequential[t.key].p99)))}, ${lists.reduce((a, t) => (sequential[t.key].p99 > sequential[a.key].p99 ? t : a)).label})`
      : `**missed one at a time** by ${seqFails.map((t) => `${t.label} (p99 ${ms(sequential[t.key].p99)})`).join(', ')}`
  }.

Expected totals the answers were checked against: search "${SEARCH_TERM}" ${fixed(expected.search)}, group ${GROUP_FILTER} ${fixed(expected.group)}, disabled ${fixed(spread.statuses.disabled ?? 0)}.

### Controller memory

RSS of the panel process from \`/proc/<pid>/status\` (VmRSS; VmHWM is the peak so far):

${markdownTable(memHeader, memRows)}

How honest these numbers are:
- Everything shares ${machine.cores} cores: the panel, PostgreSQL, Redis, and the load client (autocannon in its own process for the list runs; the bench process itself for creation and the one-at-a-time runs). Under load the "rest" column is mostly PostgreSQL; on a deployment with the database on its own cores or machine the panel would do better, so these are conservative for the panel but optimistic about network latency (loopback only, no TLS).
- A list answer carries \`total\`, the size of the whole filtered set (${fixed(N)} rows to count on an unfiltered list); how often the panel actually counts, rather than reusing a recent total, is its own business (docs/clients.md). Each load run and each one-at-a-time run repeats one request, so any reuse of totals shows here at its most favourable; the occasional request that does count lands in the tail (p99, max).
- ${settings.connections} connections on ${machine.cores} cores means requests queue: once the machine is saturated, a request's latency is roughly ${settings.connections} × its CPU cost ÷ ${machine.cores} cores (first page: ${ms(cpuPerRequest(loaded.first))} of CPU per request, so about ${ms(((cpuPerRequest(loaded.first) ?? 0) * settings.connections) / machine.cores)} expected at p50, measured ${ms(loaded.first.latency.p50)}). p99 under load is therefore mostly waiting for a core, and a list page meets ${TARGET_P99_MS} ms at p99 under ${settings.connections} connections only if its CPU cost, panel and PostgreSQL together, stays within a few milliseconds; the one-at-a-time p99 is the latency a single operator sees.
- A load run lasts ${settings.durationSeconds} s; the panel's 30 s scheduled job (expiry and reset cycles over all clients) may or may not fall inside a given run, and adds to the tail when it does.
`;
  return { text, markdown };
}
