import pg from 'pg';
import { MIGRATIONS } from '../../apps/controller/src/database/migrations/index.js';
import { DAILY } from '../../apps/controller/src/clients/usage-tiers.js';
import type { TestDatabase } from '../support/test-database.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';
import {
  lostRows,
  readTables,
  restoreFixture,
  upgradeFixtures,
  type TableRows,
  type UpgradeFixture,
} from '../support/upgrade-fixtures.js';

/**
 * Upgrades keep everything (docs/operations.md, "Upgrading"): every database an earlier build
 * made (test/fixtures/upgrade/, one per schema, made by scripts/make-upgrade-fixture.js) is
 * restored, the current panel starts on it and runs its migrations, and then every client, key,
 * address, usage figure, setting, operator and token is still there: row by row in the tables,
 * answer by answer through the API, and by signing in with the fixture's passwords and tokens.
 */

/**
 * The tables whose rows must come through an upgrade as they were. Left out: what expires or is
 * pruned on its own schedule (sessions, audit entries past their retention, system samples, the
 * login throttle, scheduled runs, inventory counters), and usage history, which the panel folds
 * into coarser rows as it ages (checked below by its sums instead).
 */
const KEPT_TABLES = [
  'users',
  'api_tokens',
  'reseller_limits',
  'settings',
  'nodes',
  'interfaces',
  'host_groups',
  'hosts',
  'outbound_subscriptions',
  'outbounds',
  'routing_basics',
  'routing_rules',
  'client_groups',
  'clients',
  'client_interfaces',
  'devices',
  'accounts',
  'device_endpoints',
  'warren_migrations',
];

/**
 * Columns a later migration dropped, moved or rewrote, each with where its data went (and that
 * place checked in this file): a migration that does so must name the column here, or this test
 * fails on it.
 */
const MOVED: Record<string, string> = {};

/**
 * Columns that change on their own, whatever the upgrade: a node's delivery state, and the
 * last-use stamps of the credentials the tests below sign in with.
 */
const CHANGING = ['nodes.updated_at', 'nodes.desired_revision', 'api_tokens.last_used_at'];

/** Fields of the API's answers that follow the clock or live state rather than what is stored. */
const LIVE_FIELDS = new Set([
  'onlineNow',
  'downRate',
  'upRate',
  'lastUsedAt',
  'expired',
  'sessions',
  'lastSeenAt',
  'agent',
  'inSync',
  'desiredRevision',
  'appliedRevision',
  'online',
  'running',
  'updatedAt',
]);

/** The answer without its live fields, at any depth. */
function stored(answer: unknown): unknown {
  if (Array.isArray(answer)) return answer.map(stored);
  if (answer === null || typeof answer !== 'object') return answer;
  return Object.fromEntries(
    Object.entries(answer)
      .filter(([key]) => !LIVE_FIELDS.has(key))
      .map(([key, value]) => [key, stored(value)]),
  );
}

/** A WireGuard profile's settings by section (`Interface.PrivateKey`, `Peer.Endpoint`...). */
function profileSettings(body: string): Record<string, string> {
  const settings: Record<string, string> = {};
  let section = '';
  for (const line of body.split('\n').map((l) => l.trim())) {
    const header = /^\[(\w+)\]$/.exec(line);
    if (header) section = header[1];
    const setting = /^(\w+)\s*=\s*(.*)$/.exec(line);
    if (setting && section) settings[`${section}.${setting[1]}`] = setting[2];
  }
  return settings;
}

/** Each client's (or node's) usage history bytes, by tier: what the folding into coarser rows keeps. */
async function historySums(database: TestDatabase, table: string, key: string) {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const [{ found }] = (await client.query<{ found: string | null }>('select to_regclass($1)::text as found', [table]))
      .rows;
    // A build older than the usage history had none to keep.
    if (!found) return null;
    const { rows } = await client.query<{ id: string; tier: number; up: string; down: string; newest: number }>(
      `select ${key} as id, tier, sum(up_bytes)::text as up, sum(down_bytes)::text as down,
              (extract(epoch from max(at)) * 1000)::float8 as newest
         from ${table} group by ${key}, tier order by 1, 2`,
    );
    return rows;
  } finally {
    await client.end();
  }
}

const fixtures = upgradeFixtures();

test('at least one upgrade fixture is committed', () => {
  expect(fixtures.length).toBeGreaterThan(0);
});

describe.each(fixtures.map((fixture) => [fixture.name, fixture] as const))(
  'a database made by the build of %s',
  (_schema, fixture: UpgradeFixture) => {
    let database: TestDatabase;
    let t: TestPanel;
    let before: Map<string, TableRows>;
    let history: Record<string, Awaited<ReturnType<typeof historySums>>>;
    const { manifest } = fixture;

    beforeAll(async () => {
      database = await restoreFixture(fixture);
      before = await readTables(database.url, KEPT_TABLES);
      history = {
        clients: await historySums(database, 'client_usage_history', 'client_id'),
        nodes: await historySums(database, 'node_usage_history', 'node_id'),
      };
      t = await startTestPanel({}, { database });
    }, 120_000);

    afterAll(async () => {
      await t?.stop();
      await database?.drop();
    });

    test('migrates to the current schema', async () => {
      const ran = await t.query<{ name: string }>('select name from warren_migrations order by id');
      // Every migration of this build has run once: the fixture's own (it had them already) and
      // those it lacked, whatever their names' order (branches merge migrations out of order).
      const names = MIGRATIONS.map((migration) => migration.name);
      expect(ran.map((row) => row.name).sort()).toEqual([...names].sort());
      expect(names).toEqual(expect.arrayContaining(manifest.migrations ?? [manifest.schema]));
      const current = (await t.call('GET', 'health/ready')).body;
      expect(current).toMatchObject({ status: 'ready' });
    });

    test('every row of every kept table is there, column by column', async () => {
      const after = await readTables(t.database.url, KEPT_TABLES);
      expect(lostRows(before, after, { moved: MOVED, changing: CHANGING })).toEqual([]);
      // The fixture is not empty where it matters.
      for (const table of ['clients', 'devices', 'accounts', 'api_tokens', 'users', 'settings', 'interfaces'])
        expect([table, before.get(table)?.size ?? 0]).not.toEqual([table, 0]);
    });

    test('usage history keeps every byte, in whichever rows it is folded into by now', async () => {
      for (const [table, key, recorded] of [
        ['client_usage_history', 'client_id', history.clients],
        ['node_usage_history', 'node_id', history.nodes],
      ] as const) {
        if (recorded === null) continue;
        expect(recorded.length).toBeGreaterThan(0);
        const now = (await historySums(t.database, table, key))!;
        // Each subject's bytes, from the finest tier the fixture held, are in every tier that
        // holds the subject now (the fixture's batches fell in one window of each tier, folded
        // whole or not yet), and in at least one tier while the daily rows' retention lasts.
        const finest = new Map<string, { up: string; down: string }>();
        for (const row of recorded) if (!finest.has(row.id)) finest.set(row.id, { up: row.up, down: row.down });
        const retained = Date.now() - Math.max(...recorded.map((row) => row.newest)) < DAILY.retentionSeconds * 1000;
        for (const [id, sums] of finest) {
          const tiers = now.filter((row) => row.id === id);
          if (retained) expect([id, tiers.length > 0]).toEqual([id, true]);
          for (const row of tiers) expect({ id, up: row.up, down: row.down }).toEqual({ id, ...sums });
        }
      }
    });

    test('the owner and every operator sign in with their passwords, in their roles', async () => {
      for (const user of [{ ...manifest.owner, role: 'owner' }, ...Object.values(manifest.users)]) {
        const signedIn = await t.call('POST', 'auth/login', {
          body: { username: user.username, password: user.password },
        });
        expect([user.username, signedIn.status, signedIn.body.user?.role]).toEqual([user.username, 200, user.role]);
      }
    });

    test('the API answers as the old build did: clients, devices, addresses, usage, settings, operators, tokens, servers', async () => {
      const token = await t.login();
      const get = async (path: string) => {
        const answer = await t.call('GET', path, { token });
        expect([path, answer.status]).toEqual([path, 200]);
        return answer.body;
      };
      const clientIds = Object.keys(manifest.answers.clients);
      expect(clientIds.length).toBeGreaterThan(0);
      for (const id of clientIds) {
        // Usage figures, quotas, expiry, devices, accounts with their addresses and public keys.
        expect(stored(await get(`clients/${id}`))).toMatchObject(stored(manifest.answers.clients[id]) as object);
      }
      // Every field the old build answered, with its value; fields a later build added may be there
      // too (toMatchObject: the same items in the same order, each with at least the old fields).
      const routes = ['settings', 'subscription', 'admins', 'tokens', 'groups', 'hosts', 'outbounds', 'interfaces'];
      for (const path of routes)
        expect([path, stored(await get(path))]).toMatchObject([path, stored(manifest.answers[path])]);
      expect(stored(await get(`routing?nodeId=${manifest.nodeId}`))).toMatchObject(
        stored(manifest.answers.routing) as object,
      );
      const nodes = (await get('nodes')) as { id: string; name: string; address: string; note: string }[];
      for (const node of manifest.answers.nodes as typeof nodes)
        expect(nodes.find((n) => n.id === node.id)).toMatchObject({
          name: node.name,
          address: node.address,
          note: node.note,
        });
    });

    // Fixtures made since host groups, outbound subscriptions and hop traffic carry them (their
    // manifest has the answers); older ones had none to keep, and their tables, when the schema
    // had them, are checked row by row above with the rest.
    const later = manifest.answers.hostGroups === undefined ? test.skip : test;
    later(
      'host groups, outbound subscriptions and hop traffic come through, row by row and in the answers',
      async () => {
        // The fixture holds them, so the row-by-row check above (lostRows) covered every one.
        const rows = (table: string) => [...(before.get(table)?.values() ?? [])];
        expect(rows('host_groups').length).toBeGreaterThan(0);
        expect(rows('hosts').some((host) => host.group_id !== null)).toBe(true);
        expect(rows('outbound_subscriptions').length).toBeGreaterThan(0);
        expect(rows('outbounds').some((hop) => hop.subscription_id !== null)).toBe(true);
        expect(rows('outbounds').some((hop) => Number(hop.up_bytes) > 0 && Number(hop.down_bytes) > 0)).toBe(true);
        expect(rows('outbounds').some((hop) => hop.traffic_since !== hop.created_at)).toBe(true);

        const token = await t.login();
        for (const [path, recorded] of [
          ['hosts/groups', manifest.answers.hostGroups],
          ['outbound-subs', manifest.answers.outboundSubs],
          [`outbounds?nodeId=${manifest.nodeId}`, manifest.answers.nodeOutbounds],
        ] as const) {
          const answer = await t.call('GET', path, { token });
          expect([path, answer.status, stored(answer.body)]).toMatchObject([path, 200, stored(recorded)]);
        }
      },
    );

    test('every device profile carries the same private key, address, peer key, preshared key and endpoint', async () => {
      const token = await t.login();
      for (const [id, recorded] of Object.entries(manifest.answers.configs)) {
        const now = (await t.call('GET', `clients/${id}/configs`, { token })).body;
        const profiles = (configs: any) =>
          configs.devices.flatMap((device: any) =>
            device.profiles.map((profile: any) => ({
              device: device.deviceId,
              interface: profile.interfaceId,
              host: profile.hostId,
              settings: profileSettings(profile.body),
            })),
          );
        const expected = profiles(recorded);
        expect(expected.length).toBeGreaterThan(0);
        for (const profile of expected)
          expect(profile.settings['Interface.PrivateKey']).toMatch(/^[A-Za-z0-9+/]{43}=$/);
        expect(profiles(now)).toEqual(expected);
      }
    });

    test('every API token still authenticates as its user, in its scope; a disabled one still does not', async () => {
      type Listed = { id: string; owner: string; enabled: boolean; readOnly: boolean; routeGroups: string[] | null };
      const listed = new Map((manifest.answers.tokens as Listed[]).map((token) => [token.id, token]));
      // Whose token it is shows in which clients it reaches: a reseller's reaches their own only.
      const reach = (username: string) =>
        Object.values(manifest.answers.clients)
          .filter((client) => username !== manifest.users.reseller.username || client.name.startsWith('resold-'))
          .map((client) => client.id as string)
          .sort();
      expect(manifest.apiTokens.length).toBeGreaterThan(0);
      for (const { id, name, token } of manifest.apiTokens) {
        const scope = listed.get(id)!;
        const clients = await t.call('GET', 'clients?perPage=200', { token });
        if (!scope.enabled) {
          expect([name, clients.status]).toEqual([name, 401]);
          continue;
        }
        expect([name, clients.status]).toEqual([name, 200]);
        const ids = (clients.body.items as { id: string }[]).map((client) => client.id).sort();
        expect([name, ids]).toEqual([name, reach(scope.owner)]);
        const me = await t.call('GET', 'auth/me', { token });
        if (scope.routeGroups) expect([name, me.status]).toEqual([name, 403]);
        else expect([name, me.status, me.body.via, me.body.user.username]).toEqual([name, 200, 'token', scope.owner]);
        const write = await t.call('PATCH', 'settings', { token, body: {} });
        expect([name, write.status]).toEqual([name, scope.readOnly || scope.routeGroups ? 403 : 200]);
      }
    });
  },
);
