import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import type { components } from '#libs/api-client/index.js';
import type { PeerCounters } from '#libs/contracts/agent-link.js';
import { BackupStore, backupNameAt } from '../../apps/controller/src/backups/backup-store.js';
import { TimeTransitionsService } from '../../apps/controller/src/clients/time-transitions.service.js';
import { UsageService } from '../../apps/controller/src/clients/usage.service.js';
import { InventoryRepository } from '../../apps/controller/src/overview/inventory.repository.js';
import { closeLinks, enrol, helloAs } from '../support/agent-link-client.js';
import { answer, fixtures, signedInPanel } from '../support/fixtures.js';
import { systemSample } from '../support/system-sample.js';
import { waitFor } from '../support/wait-for.js';

/**
 * GET /api/overview/full on a real panel: panel state and telemetry (nodes in sync, behind and
 * offline through fake agents on the real link), and inventory counters that never drift from
 * the tables, whatever changes them: the API, cascades, counter batches, enforcement, bulk SQL,
 * TRUNCATE, concurrent writers. Every comparison is with a fresh COUNT/SUM of the tables, both
 * before and after the deltas are folded.
 */

type Overview = components['schemas']['OverviewDto'];

const session = signedInPanel();
const { typed, call, createNode, createNodeWithInterface, createClient, accountsOf, getClient } = fixtures(session);
afterAll(() => closeLinks());

async function overview(token?: string): Promise<Overview> {
  const response = await answer(
    session()
      .t.client(token ?? session().token)
      .GET('/api/overview/full'),
  );
  expect(response.status).toBe(200);
  return response.body;
}

/** The inventory as a fresh scan of the tables computes it: what the counters must equal. */
async function scanned(onlineAfter: Date) {
  const { t } = session();
  const [c] = await t.query<Record<string, string>>(
    `select count(*) as total,
            count(*) filter (where status = 'active') as active, count(*) filter (where status = 'disabled') as disabled,
            count(*) filter (where status = 'expired') as expired, count(*) filter (where status = 'exhausted') as exhausted,
            coalesce(sum(up_bytes), 0) as up, coalesce(sum(down_bytes), 0) as down, coalesce(sum(used_bytes), 0) as used,
            coalesce(sum(quota_bytes), 0) as quota, count(*) filter (where quota_bytes > 0) as limited,
            count(*) filter (where quota_bytes = 0) as unlimited
       from clients`,
  );
  const [d] = await t.query<Record<string, string>>(
    `select (select count(*) from devices) as devices,
            (select count(*) from devices where last_handshake > $1) as online,
            (select count(*) from interfaces) as interfaces, (select count(*) from nodes) as nodes`,
    [onlineAfter],
  );
  const n = (value: string) => Number(value);
  return {
    clients: {
      total: n(c.total),
      active: n(c.active),
      disabled: n(c.disabled),
      expired: n(c.expired),
      exhausted: n(c.exhausted),
    },
    devices: { total: n(d.devices), online: n(d.online), onlineWindowSeconds: 180 },
    interfaces: n(d.interfaces),
    nodes: n(d.nodes),
    outbounds: null,
    usage: { upBytes: n(c.up), downBytes: n(c.down), usedBytes: n(c.used) },
    quota: { totalBytes: n(c.quota), limitedClients: n(c.limited), unlimitedClients: n(c.unlimited) },
  };
}

/**
 * The counters equal the tables, read with the deltas unfolded and again after a fold. The
 * handshakes the tests write are either seconds old or many minutes old, so the online window's
 * exact edge (now - 180 s) never falls near one of them.
 */
async function expectNoDrift(step: string) {
  const { t } = session();
  for (const phase of ['unfolded', 'folded']) {
    if (phase === 'folded') await t.panel.app.get(InventoryRepository).fold();
    const body = await overview();
    const expected = await scanned(new Date(Date.parse(body.generatedAt) - 180_000));
    expect({ step, phase, inventory: body.inventory }).toEqual({ step, phase, inventory: expected });
  }
}

const peer = (
  ifname: string,
  publicKey: string,
  rx: number,
  tx: number,
  lastHandshake: number | null,
): PeerCounters => ({
  interface: ifname,
  publicKey,
  rxBytes: rx,
  txBytes: tx,
  lastHandshake,
  endpoint: '198.51.100.7:40000',
});

describe('panel state and telemetry', () => {
  test('nodes in sync, behind and offline by their agents; a node sample; every role may read it', async () => {
    const { t } = session();
    const offline = await createNode();
    const behind = await createNode();
    const synced = await createNode();
    const behindLink = await helloAs(t, (await enrol(t, behind.enrolment!.secret)).credential);
    const syncedLink = await helloAs(t, (await enrol(t, synced.enrolment!.secret)).credential);
    const desired = (await answer(typed().GET('/api/nodes/{id}', { params: { path: { id: synced.id } } }))).body
      .desiredRevision;
    syncedLink.send({ type: 'applied', result: { revision: desired, ok: true, interfaces: [], durationMs: 1 } });
    const sample = systemSample(Date.now(), { cpu: 12.5, memoryUsed: 700 });
    syncedLink.send({ type: 'system', sample });
    behindLink.send({ type: 'heartbeat', at: Date.now() });

    const body = await waitFor('the synced node in sync with its sample', async () => {
      const current = await overview();
      const node = current.telemetry.nodes.find((n) => n.id === synced.id);
      return node?.sync.inSync && node.system ? current : undefined;
    });
    const byId = new Map(body.telemetry.nodes.map((node) => [node.id, node]));
    expect(byId.get(synced.id)).toMatchObject({
      agent: { state: 'connected' },
      sync: { inSync: true, appliedRevision: desired },
      system: { ...sample, sampledAt: new Date(sample.at).toISOString() },
    });
    expect(byId.get(behind.id)).toMatchObject({
      agent: { state: 'connected' },
      sync: { inSync: false, appliedRevision: 0 },
    });
    expect(byId.get(offline.id)).toMatchObject({ agent: { state: 'never-enrolled' }, system: null });
    // The local node (unmanaged: tests run with WARREN_LOCAL_AGENT=off, so it is not offline:
    // issue 19 item 18), the offline one, and the two on links.
    expect(body.panel.nodes).toEqual({ total: 4, inSync: 1, behind: 1, offline: 1, unmanaged: 1 });
    expect(body.telemetry.nodes.find((node) => node.isLocal)?.agent.state).toBe('unmanaged');
    expect(body.inventory.nodes).toBe(4);
    // The same telemetry GET /api/system shows.
    const system = (await answer(typed().GET('/api/system'))).body;
    expect(body.telemetry.nodes.map((node) => node.id)).toEqual(system.nodes.map((node) => node.id));
    expect(body.telemetry.controller.cpu.cores).toBe(system.controller.cpu.cores);

    // A dropped link: offline, even though its revisions still match.
    syncedLink.socket.close();
    await syncedLink.closed;
    const after = await waitFor('the closed link offline', async () => {
      const current = await overview();
      return current.telemetry.nodes.find((n) => n.id === synced.id)?.agent.state === 'disconnected'
        ? current
        : undefined;
    });
    expect(after.panel.nodes).toEqual({ total: 4, inSync: 0, behind: 1, offline: 2, unmanaged: 1 });

    for (const role of ['viewer', 'admin'] as const) {
      const user = await fixtures(session).createUser(role);
      expect((await overview(user.token)).panel.nodes.total).toBe(4);
    }
    expect((await t.call('GET', 'overview/full')).status).toBe(401);
  });

  test('version, start, backends, the last enforcement run and the last backup', async () => {
    const { t } = session();
    const version = (
      JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
    ).version;
    const before = await overview();
    expect(before.panel).toMatchObject({ version, database: 'external', queue: 'redis', lastBackup: null });
    expect(Date.parse(before.panel.startedAt)).toBeLessThanOrEqual(Date.parse(before.generatedAt));
    expect(before.panel.uptimeSeconds).toBeGreaterThan(0);
    expect(before.inventory.outbounds).toBeNull();

    // A run recorded in its own transaction, with what it did; an older clock does not replace it.
    const transitions = t.panel.app.get(TimeTransitionsService);
    const at = new Date(Date.now() + 1000);
    const result = await transitions.applyTimeTransitions(at);
    const recorded = (await overview()).panel.lastEnforcement;
    expect(Date.parse(recorded!.at)).toBeGreaterThanOrEqual(at.getTime());
    if (recorded!.at === at.toISOString()) expect(recorded).toEqual({ at: at.toISOString(), ...result });
    await transitions.applyTimeTransitions(new Date(at.getTime() - 60_000));
    expect(Date.parse((await overview()).panel.lastEnforcement!.at)).toBeGreaterThanOrEqual(at.getTime());

    // The newest archive of the backup directory.
    const store = new BackupStore(t.config.backupDir);
    for (const [offset, content] of [
      [-3_600_000, 'older'],
      [-60_000, 'newer'],
    ] as const) {
      const scratch = await store.scratch('test');
      await writeFile(scratch, content);
      await store.commit(scratch, backupNameAt(new Date(Date.now() + offset)), 'a'.repeat(64));
    }
    const newest = (await store.list())[0];
    // The directory is listed at most every 5 s (overview.service.ts): the new archive shows within that.
    const shown = await waitFor(
      'the newest backup shown',
      async () => {
        const last = (await overview()).panel.lastBackup;
        return last?.name === newest.name ? last : undefined;
      },
      15_000,
    );
    expect(shown).toEqual({
      name: newest.name,
      size: 5,
      createdAt: newest.createdAt.toISOString(),
      sha256: 'a'.repeat(64),
    });
  });
});

describe('inventory counters never drift from the tables', () => {
  test('creates, device changes, status changes, counter batches, enforcement, deletes and cascades', async () => {
    const { t } = session();
    const usage = t.panel.app.get(UsageService);
    const transitions = t.panel.app.get(TimeTransitionsService);
    await expectNoDrift('start');

    const { node, iface } = await createNodeWithInterface();
    const second = await createNodeWithInterface();
    await expectNoDrift('two nodes with an interface each');

    const plain = await createClient({ interfaceIds: [iface.id] });
    const limited = await createClient({
      interfaceIds: [iface.id, second.iface.id],
      quotaBytes: 10_000,
      deviceLimit: 3,
      deviceNames: ['phone', 'laptop'],
    });
    const expiring = await createClient({
      interfaceIds: [iface.id],
      expiresAt: new Date(Date.now() + 2000).toISOString(),
      quotaBytes: 1 << 30,
    });
    const cycling = await createClient({ interfaceIds: [iface.id], resetCycle: 'daily' });
    await expectNoDrift('clients created');

    const added = await answer(
      typed().POST('/api/clients/{id}/devices', { params: { path: { id: limited.id } }, body: { name: 'tablet' } }),
    );
    expect(added.status).toBe(201);
    await expectNoDrift('a device added');
    expect(
      (await answer(typed().DELETE('/api/devices/{id}', { params: { path: { id: added.body.id } } }))).status,
    ).toBe(200);
    await expectNoDrift('a device deleted');

    // Counter batches: bytes, handshakes (one recent, one long ago), and a quota reached.
    const keys = async (clientId: string) =>
      (await accountsOf(clientId)).filter((a) => a.interface_id === iface.id).map((a) => a.public_key as string);
    const [plainKey] = await keys(plain.id);
    const [phoneKey, laptopKey] = await keys(limited.id);
    const [cyclingKey] = await keys(cycling.id);
    await usage.recordCounters(node.id, 1, [
      peer(iface.name, plainKey, 1000, 2000, Date.now() - 5000),
      peer(iface.name, phoneKey, 3000, 1000, Date.now() - 20 * 60_000),
      peer(iface.name, cyclingKey, 400, 600, Date.now() - 2000),
    ]);
    await expectNoDrift('a counter batch');
    expect(
      (await usage.recordCounters(node.id, 2, [peer(iface.name, laptopKey, 5000, 1000, Date.now() - 1000)]))
        .transitions,
    ).toBe(1);
    expect((await getClient(limited.id)).status).toBe('exhausted');
    await expectNoDrift('a counter batch exhausting a client');
    // A handshake moving from one second to a later one, and one from long ago into the window.
    await usage.recordCounters(node.id, 3, [
      peer(iface.name, plainKey, 1, 1, Date.now() - 1000),
      peer(iface.name, phoneKey, 1, 1, Date.now() - 3000),
    ]);
    await expectNoDrift('handshakes moving');

    // Status changes through the API.
    expect(
      (
        await answer(
          typed().PATCH('/api/clients/{id}', { params: { path: { id: plain.id } }, body: { enabled: false } }),
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await answer(
          typed().PATCH('/api/clients/{id}', { params: { path: { id: limited.id } }, body: { quotaBytes: 0 } }),
        )
      ).status,
    ).toBe(200);
    await expectNoDrift('disabled; quota lifted');
    expect(
      (await answer(typed().POST('/api/clients/{id}/reset', { params: { path: { id: limited.id } } }))).status,
    ).toBe(200);
    await expectNoDrift('usage reset');

    // Enforcement: expiry, and a daily cycle whose day has passed (its anchor moved back by SQL).
    await t.query(`update clients set created_at = now() - interval '2 days' where id = $1`, [cycling.id]);
    const enforced = await transitions.applyTimeTransitions(new Date(Date.now() + 5000));
    expect(enforced).toMatchObject({ expired: 1, renewed: 1 });
    expect((await getClient(expiring.id)).status).toBe('expired');
    expect((await getClient(cycling.id)).usedBytes).toBe(0);
    await expectNoDrift('enforcement');

    // Deletes and cascades: a client (its devices go with it), an interface by force (accounts
    // and links go), a node (its interfaces go).
    expect((await answer(typed().DELETE('/api/clients/{id}', { params: { path: { id: cycling.id } } }))).status).toBe(
      200,
    );
    await expectNoDrift('a client deleted');
    expect((await call('DELETE', `interfaces/${second.iface.id}?force=true`)).status).toBe(200);
    await expectNoDrift('an interface deleted by force');
    expect((await call('DELETE', `nodes/${second.node.id}`)).status).toBe(200);
    await expectNoDrift('a node deleted');
  });

  test('concurrent writers: parallel creations and counter batches, no deadlock and no drift', async () => {
    const { t } = session();
    const usage = t.panel.app.get(UsageService);
    const nodes = await Promise.all([createNodeWithInterface(), createNodeWithInterface()]);
    const created = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        createClient({ interfaceIds: [nodes[i % 2].iface.id], quotaBytes: i % 3 === 0 ? 0 : 50_000 }),
      ),
    );
    await expectNoDrift('parallel creations');
    const batches = [];
    for (const [n, { node, iface }] of nodes.entries()) {
      const mine = created.filter((_, i) => i % 2 === n);
      const peers = await Promise.all(
        mine.map(async (client) => (await accountsOf(client.id))[0].public_key as string),
      );
      for (let seq = 1; seq <= 4; seq++) {
        batches.push(
          usage.recordCounters(
            node.id,
            seq,
            peers.map((key) => peer(iface.name, key, 7000 * seq, 5000, Date.now() - seq * 1000)),
          ),
        );
      }
    }
    // Client writes at the same time as the batches.
    const writes = created
      .slice(0, 6)
      .map((client) =>
        answer(
          typed().PATCH('/api/clients/{id}', { params: { path: { id: client.id } }, body: { quotaBytes: 20_000 } }),
        ),
      );
    await Promise.all([...batches, ...writes]);
    await expectNoDrift('parallel batches and changes');
  });

  test('bulk SQL, a rolled-back change and TRUNCATE keep them exact', async () => {
    const { t } = session();
    await t.query(`update clients set status = 'disabled', quota_bytes = quota_bytes + 1, up_bytes = up_bytes + 5`);
    await t.query(`update devices set last_handshake = now() - interval '10 seconds'`);
    await expectNoDrift('bulk updates');
    await t
      .query(`begin; update clients set up_bytes = up_bytes + 1000; delete from devices; rollback;`)
      .catch(() => undefined);
    await expectNoDrift('a rolled-back change');
    await t.query('truncate clients cascade');
    await expectNoDrift('truncate');
    const { iface } = await createNodeWithInterface();
    await createClient({ interfaceIds: [iface.id] });
    await expectNoDrift('a client after truncate');
  });
});
