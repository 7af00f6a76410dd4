// PostgreSQL's own cost of one counter batch, apart from the controller and the links: on a
// database the fleet bench kept (BENCH_KEEP_DATABASE=1, then BENCH_REUSE_DATABASE=<its name>),
// one connection sends the batch statement of clients/usage.repository.ts (COUNT_BATCH, from the
// build in dist/) for 50-peer batches of the nodes in turn, each in its own transaction, and reads
// the backend's CPU time from /proc (PostgreSQL on this host). Variants, interleaved in rounds so
// each sees the same machine: the statement prepared (as the panel runs it) or re-planned each
// time (values inlined, as em.execute sends them), and with or without the old index on
// clients.used_bytes (created for its rounds, dropped after). Also the HOT share of the clients'
// updates in each variant.
//
// Run: npm run build && BENCH_REUSE_DATABASE=warren_bench_… node bench/counter-statement.js
// Settings: BENCH_BATCHES (batches per variant and round, 200), BENCH_ROUNDS (3).
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { SERVER_DATABASE_URL } from './lib/database.js';
import { envNumber } from './lib/settings.js';

const database = process.env.BENCH_REUSE_DATABASE;
if (!database) throw new Error('BENCH_REUSE_DATABASE=<a database the fleet bench kept> is required');
const batches = envNumber('BENCH_BATCHES', 200, 1);
const rounds = envNumber('BENCH_ROUNDS', 3, 1);
const dist = new URL('../dist/apps/controller/src/clients/', import.meta.url);

/** The statement as the build has it (it is not exported: read from the compiled module). */
async function countBatchText() {
  const { endpointMoves } = await import(new URL('sharing/sharing.repository.js', dist).href);
  const { FIVE_MINUTES } = await import(new URL('usage-tiers.js', dist).href);
  const source = readFileSync(new URL('usage.repository.js', dist), 'utf8');
  const template = source.match(/const COUNT_BATCH = (`[\s\S]*?`);\n/)?.[1];
  if (!template) throw new Error('COUNT_BATCH not found in the build');
  return new Function('endpointMoves', 'MAX_BYTES', 'FIVE_MINUTES', `return ${template}`)(
    endpointMoves,
    Number.MAX_SAFE_INTEGER,
    FIVE_MINUTES,
  );
}

function backendCpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in clock ticks of 10 ms
}

function inline(text, values, client) {
  return text.replace(/\$(\d+)/g, (_, n) => {
    const value = values[Number(n) - 1];
    return value === null ? 'null' : typeof value === 'number' ? String(value) : client.escapeLiteral(String(value));
  });
}

const url = new URL(SERVER_DATABASE_URL);
url.pathname = `/${database}`;
const client = new pg.Client({ connectionString: url.toString() });
await client.connect();
const text = await countBatchText();
const [{ pid }] = (await client.query('select pg_backend_pid() as pid')).rows;
const nodes = (
  await client.query(
    `select i.node_id, n.counters_seq::int8::text as seq,
            jsonb_agg(jsonb_build_object('ifname', i.name, 'public_key', a.public_key, 'endpoint', '198.51.100.7:51820')) as peers
       from interfaces i join accounts a on a.interface_id = i.id join node_agents n on n.node_id = i.node_id
      group by i.node_id, n.counters_seq order by i.node_id`,
  )
).rows.map((row) => ({ id: row.node_id, seq: Number(row.seq), peers: row.peers }));
if (nodes.length === 0) throw new Error(`no nodes with accounts in ${database}`);

let turn = 0;
function nextBatch() {
  const node = nodes[turn++ % nodes.length];
  node.seq += 1;
  const now = new Date();
  const peers = node.peers.map((peer) => ({
    ...peer,
    rx: Math.floor(1_000 + Math.random() * 199_000),
    tx: Math.floor(5_000 + Math.random() * 995_000),
    handshake: now.toISOString(),
    address: '198.51.100.7',
  }));
  const bucket = new Date(Math.floor(now.getTime() / 300_000) * 300_000);
  return [
    JSON.stringify(peers),
    node.id,
    node.seq,
    1_000_000,
    2,
    new Date(now.getTime() + 3000).toISOString(),
    bucket.toISOString(),
    now.toISOString(),
  ];
}

async function clientsUpdates() {
  const [row] = (
    await client.query(
      `select n_tup_upd::float8 as upd, n_tup_hot_upd::float8 as hot from pg_stat_user_tables where relname = 'clients'`,
    )
  ).rows;
  return row;
}

async function run(prepared) {
  const cpu = backendCpuMs(pid);
  const started = performance.now();
  for (let i = 0; i < batches; i++) {
    const values = nextBatch();
    await client.query('begin');
    if (prepared) await client.query({ name: 'warren_count_batch', text, values });
    else await client.query(inline(text, values, client));
    await client.query('commit');
  }
  return { cpuMs: backendCpuMs(pid) - cpu, wallMs: performance.now() - started };
}

const variants = [
  { name: 'prepared, no used_bytes index', prepared: true, index: false },
  { name: 're-planned, no used_bytes index', prepared: false, index: false },
  { name: 'prepared, used_bytes index', prepared: true, index: true },
  { name: 're-planned, used_bytes index', prepared: false, index: true },
];
const totals = new Map(variants.map((variant) => [variant.name, { cpuMs: 0, wallMs: 0, n: 0, upd: 0, hot: 0 }]));
await run(true); // warm: the prepared statement settles on its generic plan
for (let round = 0; round < rounds; round++) {
  for (const variant of variants) {
    if (variant.index) await client.query('create index bench_used_bytes_id on clients (used_bytes, id)');
    // Statistics reach pg_stat_user_tables when a backend's transaction ends, at most every second.
    const before = await clientsUpdates();
    const measured = await run(variant.prepared);
    await client.query('select pg_stat_force_next_flush()').catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const after = await clientsUpdates();
    if (variant.index) await client.query('drop index bench_used_bytes_id');
    const total = totals.get(variant.name);
    total.cpuMs += measured.cpuMs;
    total.wallMs += measured.wallMs;
    total.n += batches;
    total.upd += after.upd - before.upd;
    total.hot += after.hot - before.hot;
  }
}
await client.end();
console.log(
  `PostgreSQL per 50-peer counter batch, ${database}, ${nodes.length} nodes, ${rounds} rounds × ${batches} batches per variant:`,
);
for (const [name, total] of totals) {
  console.log(
    `${name.padEnd(34)} CPU ${(total.cpuMs / total.n).toFixed(2)} ms  wall ${(total.wallMs / total.n).toFixed(2)} ms  clients HOT ${total.upd ? ((100 * total.hot) / total.upd).toFixed(0) : '–'}%`,
  );
}
