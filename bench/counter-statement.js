// PostgreSQL's own cost of a counter batch, apart from the controller and the links: on a
// database the fleet bench kept (BENCH_KEEP_DATABASE=1, then BENCH_REUSE_DATABASE=<its name>),
// one connection sends the batches' statement of clients/usage.repository.ts (COUNT_BATCHES,
// from the build in dist/) for 50-peer batches of the nodes in turn, as the panel runs it (a
// named prepared statement, a transaction each), and reads the backend's CPU time from /proc
// (PostgreSQL on this host). Variants, interleaved in rounds so each sees the same machine: how
// many nodes' batches go in one statement and transaction (1: each alone, the baseline; more:
// clients/counter-commits.ts, group commit). Also the HOT share of the clients' updates.
//
// Run: npm run build && BENCH_REUSE_DATABASE=warren_bench_… node bench/counter-statement.js
// Settings: BENCH_BATCHES (batches per variant and round, 256), BENCH_ROUNDS (3), BENCH_GROUPS
// (batches per transaction to compare, "1,4,16,64").
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { SERVER_DATABASE_URL } from './lib/database.js';
import { envNumber } from './lib/settings.js';

const database = process.env.BENCH_REUSE_DATABASE;
if (!database) throw new Error('BENCH_REUSE_DATABASE=<a database the fleet bench kept> is required');
const batches = envNumber('BENCH_BATCHES', 256, 1);
const groups = (process.env.BENCH_GROUPS || '1,4,16,64').split(',').map(Number);
if (groups.some((size) => !(Number.isInteger(size) && size >= 1)))
  throw new Error(`BENCH_GROUPS must list batch counts, got "${process.env.BENCH_GROUPS}"`);
const rounds = envNumber('BENCH_ROUNDS', 3, 1);
const dist = new URL('../dist/apps/controller/src/clients/', import.meta.url);

/** The statement as the build has it (it is not exported: read from the compiled module). */
async function countBatchText() {
  const { endpointMoves } = await import(new URL('sharing/sharing.repository.js', dist).href);
  const { FIVE_MINUTES } = await import(new URL('usage-tiers.js', dist).href);
  const source = readFileSync(new URL('usage.repository.js', dist), 'utf8');
  const template = source.match(/const COUNT_BATCHES = (`[\s\S]*?`);\n/)?.[1];
  if (!template) throw new Error('COUNT_BATCHES not found in the build');
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
/** The statement's values for `size` batches of distinct nodes, each node's next. */
function nextBatches(size) {
  const now = new Date();
  const sent = [];
  const peers = [];
  for (let i = 0; i < size; i++) {
    const node = nodes[turn++ % nodes.length];
    node.seq += 1;
    sent.push({
      i,
      node_id: node.id,
      seq: node.seq,
      seconds: 2,
      rate_until: new Date(now.getTime() + 3000).toISOString(),
    });
    for (const peer of node.peers)
      peers.push({
        ...peer,
        i,
        rx: Math.floor(1_000 + Math.random() * 199_000),
        tx: Math.floor(5_000 + Math.random() * 995_000),
        handshake: now.toISOString(),
        address: '198.51.100.7',
      });
  }
  const bucket = new Date(Math.floor(now.getTime() / 300_000) * 300_000);
  return [JSON.stringify(sent), JSON.stringify(peers), 1_000_000, bucket.toISOString(), now.toISOString()];
}

async function clientsUpdates() {
  const [row] = (
    await client.query(
      `select n_tup_upd::float8 as upd, n_tup_hot_upd::float8 as hot from pg_stat_user_tables where relname = 'clients'`,
    )
  ).rows;
  return row;
}

async function run(size) {
  const cpu = backendCpuMs(pid);
  const started = performance.now();
  for (let i = 0; i < batches; i += size) {
    const values = nextBatches(Math.min(size, batches - i, nodes.length));
    await client.query('begin');
    await client.query({ name: 'warren_count_batches', text, values });
    await client.query('commit');
  }
  return { cpuMs: backendCpuMs(pid) - cpu, wallMs: performance.now() - started };
}

const totals = new Map(groups.map((size) => [size, { cpuMs: 0, wallMs: 0, n: 0, upd: 0, hot: 0 }]));
await run(1); // warm: the prepared statement settles on its generic plan
for (let round = 0; round < rounds; round++) {
  for (const size of groups) {
    // Statistics reach pg_stat_user_tables when a backend's transaction ends, at most every second.
    const before = await clientsUpdates();
    const measured = await run(size);
    await client.query('select pg_stat_force_next_flush()').catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const after = await clientsUpdates();
    const total = totals.get(size);
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
for (const [size, total] of totals) {
  const name = size === 1 ? '1 batch a transaction' : `${size} batches a transaction`;
  console.log(
    `${name.padEnd(26)} CPU ${(total.cpuMs / total.n).toFixed(2)} ms  wall ${(total.wallMs / total.n).toFixed(2)} ms  clients HOT ${total.upd ? ((100 * total.hot) / total.upd).toFixed(0) : '–'}%`,
  );
}
