import { MikroORM } from '@mikro-orm/postgresql';
import type { DesiredState } from '#libs/contracts/desired-state.js';
import pg from 'pg';
import { DeliveryRepository, JOURNAL_PRUNE } from '../../apps/controller/src/nodes/delivery/delivery.repository.js';
import { patchDesiredState } from '../../apps/controller/src/nodes/delivery/desired-state-patch.js';
import { bumpRevisions, WHOLE_STATE_MARKER } from '../../apps/controller/src/revisions/revisions.js';
import { freshInterface, fixtures, signedInPanel } from '../support/fixtures.js';

/**
 * The peer journal (docs/agents.md, "Deltas"): a delivery builds the node's state from the state
 * it last delivered and the journal's changes since, reading only the accounts that changed.
 * After each kind of change the API makes, that patched state must be the whole state read
 * from the database, peer for peer, limit for limit, quota for quota.
 */
const session = signedInPanel();
const f = fixtures(session);
const { call } = f;

/** The state with its lists in one order: the patch appends, the whole read sorts by address. */
function canonical(state: DesiredState | undefined) {
  if (!state) return state;
  const byKey =
    <T>(key: (entry: T) => string) =>
    (a: T, b: T) =>
      key(a).localeCompare(key(b));
  return {
    ...state,
    quotas: [...(state.quotas ?? [])]
      .map((quota) => ({ ...quota, ips: [...quota.ips].sort() }))
      .sort(byKey((quota) => quota.client)),
    interfaces: state.interfaces.map((iface) => ({
      ...iface,
      peers: [...iface.peers].sort(byKey((peer) => peer.publicKey)),
      speedLimits: [...(iface.speedLimits ?? [])]
        .map((limit) => ({ ...limit, ips: [...limit.ips].sort() }))
        .sort(byKey((limit) => limit.clientId)),
    })),
  };
}

async function ok(method: string, path: string, body?: unknown) {
  const answer = await call(method, path, body);
  expect({ method, path, status: answer.status < 300 }).toEqual({ method, path, status: true });
  return answer.body;
}

test('a state patched from the peer journal equals the whole state, after every kind of change', async () => {
  const { t } = session();
  const repository = t.panel.app.get(DeliveryRepository);
  const { node, iface } = await f.createNodeWithInterface();
  const second = await f.createInterface({ nodeId: node.id });
  const both = [iface.id, second.id];
  const quoted = await f.createClient({ quotaBytes: 5_000_000_000, interfaceIds: both, deviceLimit: 0 });
  const limited = await f.createClient({ rateBitsPerSec: 8_000_000, interfaceIds: [iface.id], deviceLimit: 0 });
  const plain = await f.createClient({ interfaceIds: both, deviceLimit: 0 });

  let base = (await repository.wholeState(node.id))!;
  let patched = 0;
  /** Makes the change, then patches the last state and reads the whole one: they must agree. */
  async function after(change: string, make: () => Promise<unknown>, expectPatch = true) {
    await make();
    const changes = await repository.changesSince(node.id, base.state, 10_000);
    expect({ change, whole: changes === 'whole' || changes === undefined }).toEqual({ change, whole: false });
    const fromJournal = patchDesiredState(base, changes as Exclude<typeof changes, 'whole' | undefined>);
    const whole = (await repository.wholeState(node.id))!;
    expect({ change, revisionMoved: whole.state.revision > base.state.revision }).toEqual({
      change,
      revisionMoved: true,
    });
    if (expectPatch) {
      expect({ change, state: canonical(fromJournal?.state), ids: fromJournal?.interfaceIds }).toEqual({
        change,
        state: canonical(whole.state),
        ids: whole.interfaceIds,
      });
      patched++;
    } else {
      // The patch cannot say (an interface it never saw): the caller reads the whole state.
      expect({ change, state: fromJournal }).toEqual({ change, state: undefined });
    }
    base = whole;
  }

  await after('a device added', () => ok('POST', `clients/${quoted.id}/devices`, { name: 'tablet' }));
  await after('a device added to a limited client', () => ok('POST', `clients/${limited.id}/devices`, { name: 'pad' }));
  await after('a client added', () => f.createClient({ quotaBytes: 1_000_000, interfaceIds: both }));
  await after('a quota raised', () => ok('PATCH', `clients/${quoted.id}`, { quotaBytes: 9_000_000_000 }));
  await after('a speed limit changed', () => ok('PATCH', `clients/${limited.id}`, { rateBitsPerSec: 16_000_000 }));
  await after('a speed limit set', () => ok('PATCH', `clients/${plain.id}`, { rateBitsPerSec: 1_000_000 }));
  await after('a client disabled', () => ok('PATCH', `clients/${quoted.id}`, { enabled: false }));
  await after('a client enabled again', () => ok('PATCH', `clients/${quoted.id}`, { enabled: true }));
  // Usage counted (as a counter batch would: up only), then reset: the quota's remaining bytes grow.
  await t.query('update clients set used_bytes = 1234567, up_bytes = 1234567 where id = $1', [quoted.id]);
  await after('a traffic reset', () => ok('POST', `clients/${quoted.id}/reset`));
  await after('keys rotated', () => ok('POST', `clients/${limited.id}/rotate-keys`));
  await after('a client taken off an interface', () =>
    ok('PATCH', `clients/${quoted.id}`, { interfaceIds: [iface.id] }),
  );
  await after('a client put on an interface', () => ok('PATCH', `clients/${limited.id}`, { interfaceIds: both }));
  const devices = (await f.getClient(quoted.id)).devices;
  await after('a device deleted', () => ok('DELETE', `devices/${devices[devices.length - 1].id}`));
  await after('a client deleted', () => ok('DELETE', `clients/${limited.id}`));
  await after('an interface changed', () => ok('PATCH', `interfaces/${second.id}`, { mtu: 1380 }));
  await after('an interface disabled', () => ok('PATCH', `interfaces/${second.id}`, { enabled: false }), false);
  await after('an interface enabled again', () => ok('PATCH', `interfaces/${second.id}`, { enabled: true }), false);
  await after('a device added after that', () => ok('POST', `clients/${plain.id}/devices`, { name: 'laptop' }));
  // One interface deleted and another made under its name, between two deliveries: the name now
  // stands for other peers, so the patch must not carry the old ones over.
  const reused = { ...freshInterface({ nodeId: node.id }), name: second.name };
  await after(
    'an interface deleted and another made under its name',
    async () => {
      await ok('DELETE', `interfaces/${second.id}?force=true`);
      await ok('POST', 'interfaces', reused);
    },
    false,
  );
  expect(patched).toBe(16);
});

test("a restore's marker makes the next delivery read the whole state", async () => {
  const { t } = session();
  const repository = t.panel.app.get(DeliveryRepository);
  const { node, iface } = await f.createNodeWithInterface();
  await f.createClient({ interfaceIds: [iface.id] });
  const before = (await repository.wholeState(node.id))!;
  // As a restore leaves it (backups.repository.ts): the node's revision moved and one marker row.
  await t.query(
    `with bumped as (update nodes set desired_revision = desired_revision + 1 where id = $1 returning desired_revision)
     insert into peer_changes (node_id, account_id, revision) select $1, $2, desired_revision from bumped`,
    [node.id, WHOLE_STATE_MARKER],
  );
  expect(await repository.changesSince(node.id, before.state, 10_000)).toBe('whole');
});

test('the journal is pruned by when rows were stamped: a row written long ago but stamped now stays; one stamped long ago goes; an unstamped one stays', async () => {
  const { t } = session();
  const repository = t.panel.app.get(DeliveryRepository);
  const { node } = await f.createNodeWithInterface();
  const other = (await f.createNodeWithInterface()).node;
  const [longAgo, stampedLongAgo, unstamped] = ['22222222', '33333333', '44444444'].map(
    (head) => `${head}-2222-4222-8222-222222222222`,
  );
  // As a transaction open for an hour leaves its rows at commit: written (created_at) an hour ago,
  // not stamped yet; its bump, the last thing it does, stamps them now.
  await t.query(
    `insert into peer_changes (node_id, account_id, created_at) values ($1, $2, clock_timestamp() - interval '1 hour')`,
    [node.id, longAgo],
  );
  await bumpRevisions(t.panel.app.get(MikroORM).em.fork(), [node.id]);
  // A row stamped an hour ago (its delivery long done), and one on another node no bump stamped yet.
  await t.query(
    `insert into peer_changes (node_id, account_id, revision, created_at, stamped_at)
     values ($1, $2, 1, clock_timestamp() - interval '1 hour', clock_timestamp() - interval '1 hour'),
            ($3, $4, null, clock_timestamp() - interval '1 hour', null)`,
    [node.id, stampedLongAgo, other.id, unstamped],
  );
  await repository.pruneJournal(20);
  const left = await t.query<{ account_id: string }>(
    `select account_id from peer_changes where account_id = any($1::uuid[]) order by account_id`,
    [[longAgo, stampedLongAgo, unstamped]],
  );
  expect(left.map((row) => row.account_id)).toEqual([longAgo, unstamped]);
});

test("the journal's prune walks its stamped_at index, never the whole table", async () => {
  const { t } = session();
  const client = new pg.Client({ connectionString: t.database.url });
  await client.connect();
  try {
    // With sequential scans priced out, the plan uses the index if its condition can bound one
    // (a tiny test table would otherwise be scanned whatever the condition).
    await client.query('set enable_seqscan = off');
    const { rows } = await client.query(`explain (format json) ${JOURNAL_PRUNE('20')}`);
    const plan = JSON.stringify(rows[0]['QUERY PLAN']);
    // The index bounds the scan (an index condition), not walked whole under a filter.
    expect(plan).toContain('"Index Name":"peer_changes_stamped_at_index"');
    expect(plan).toMatch(/"Index Cond":"\(stamped_at < /);
    expect(plan).not.toMatch(/Seq Scan|"Filter"/);
  } finally {
    await client.end();
  }
});
