import { answer, fixtures } from '../support/fixtures.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';

let t: TestPanel;
let ownerToken: string;

const { createUser } = fixtures(() => ({ t, token: ownerToken }));

beforeAll(async () => {
  t = await startTestPanel();
  ownerToken = await t.login();
});
afterAll(async () => {
  await t?.stop();
});

const DEFAULTS = {
  backupIntervalHours: 24,
  backupKeep: 7,
  probeUrl: 'http://cp.cloudflare.com/generate_204',
  probeTimeoutMs: 5000,
  allowPrivateTargets: false,
  hopCheckIntervalSeconds: 60,
  auditRetentionDays: 365,
  sharingWindowMinutes: 60,
  sharingMaxAddresses: 3,
  sharingAction: 'flag' as const,
};

describe('/api/settings', () => {
  test('reads the defaults on a new panel, and a change is written, read back and kept per key', async () => {
    const fresh = await answer(t.client(ownerToken).GET('/api/settings'));
    expect([fresh.status, fresh.body]).toEqual([200, DEFAULTS]);

    const changed = await answer(
      t.client(ownerToken).PATCH('/api/settings', { body: { backupIntervalHours: 6, backupKeep: 3 } }),
    );
    expect([changed.status, changed.body]).toEqual([200, { ...DEFAULTS, backupIntervalHours: 6, backupKeep: 3 }]);
    const more = await answer(
      t
        .client(ownerToken)
        .PATCH('/api/settings', { body: { allowPrivateTargets: true, probeUrl: 'http://192.0.2.10:8080/ip' } }),
    );
    expect(more.body).toEqual({
      ...DEFAULTS,
      backupIntervalHours: 6,
      backupKeep: 3,
      allowPrivateTargets: true,
      probeUrl: 'http://192.0.2.10:8080/ip',
    });
    expect((await answer(t.client(ownerToken).GET('/api/settings'))).body).toEqual(more.body);

    await answer(t.client(ownerToken).PATCH('/api/settings', { body: DEFAULTS }));
  });

  test('bad values answer 400 naming the field, and nothing of the request is written', async () => {
    const before = (await answer(t.client(ownerToken).GET('/api/settings'))).body;
    const cases: [Record<string, unknown>, string][] = [
      [{ backupKeep: 3, backupIntervalHours: -1 }, 'backupIntervalHours'],
      [{ backupIntervalHours: 721 }, 'backupIntervalHours'],
      [{ backupIntervalHours: 1.5 }, 'backupIntervalHours'],
      [{ backupKeep: 0 }, 'backupKeep'],
      [{ backupKeep: null }, 'backupKeep'],
      [{ probeUrl: 'ftp://example.com/' }, 'probeUrl'],
      [{ probeUrl: 'not a url' }, 'probeUrl'],
      [{ probeUrl: `http://example.com/${'a'.repeat(2048)}` }, 'probeUrl'],
      [{ probeTimeoutMs: 10 }, 'probeTimeoutMs'],
      [{ hopCheckIntervalSeconds: -1 }, 'hopCheckIntervalSeconds'],
      [{ hopCheckIntervalSeconds: 86_401 }, 'hopCheckIntervalSeconds'],
      [{ hopCheckIntervalSeconds: 1.5 }, 'hopCheckIntervalSeconds'],
      [{ allowPrivateTargets: 'yes' }, 'allowPrivateTargets'],
      [{ unknownOption: 1 }, 'unknownOption'],
      [{ probeUrl: 'https://user:pw@example.com/' }, 'probeUrl'],
      [{ probeUrl: 'http://127.0.0.1:6379/' }, 'probeUrl'],
      [{ probeUrl: 'http://169.254.169.254/latest/meta-data/' }, 'probeUrl'],
      [{ probeUrl: 'http://[::1]:5432/' }, 'probeUrl'],
      [{ probeUrl: 'http://localhost/' }, 'probeUrl'],
      // Internal networks and spellings that compared as text passed.
      [{ probeUrl: 'http://10.0.0.1/' }, 'probeUrl'],
      [{ probeUrl: 'http://172.16.5.5:8080/' }, 'probeUrl'],
      [{ probeUrl: 'http://192.168.0.1/' }, 'probeUrl'],
      [{ probeUrl: 'http://100.64.0.1/' }, 'probeUrl'],
      [{ probeUrl: 'http://[fd00::1]/' }, 'probeUrl'],
      [{ probeUrl: 'http://224.0.0.1/' }, 'probeUrl'],
      [{ probeUrl: 'http://255.255.255.255/' }, 'probeUrl'],
      [{ probeUrl: 'http://[0:0:0:0:0:0:0:1]/' }, 'probeUrl'],
      [{ probeUrl: 'http://[::ffff:7f00:1]/' }, 'probeUrl'],
      [{ probeUrl: 'http://[::ffff:10.0.0.1]/' }, 'probeUrl'],
      // An IPv6 zone id: the DTO's URL rule takes it, the URL parser (and so the agent) does not.
      [{ probeUrl: 'http://[fe80::1%25eth0]/' }, 'probeUrl'],
      [{ probeUrl: 'http://[fe80::1%25eth0]/', allowPrivateTargets: true }, 'probeUrl'],
      [{ probeUrl: 'http://[fe80::1%eth0]/' }, 'probeUrl'],
    ];
    for (const [body, field] of cases) {
      const refused = await t.call('PATCH', 'settings', { token: ownerToken, body });
      expect([body, refused.status, refused.body.field]).toEqual([body, 400, field]);
    }
    expect((await answer(t.client(ownerToken).GET('/api/settings'))).body).toEqual(before);
  });

  test('a stored value that is not valid (a damaged row) reads as its default', async () => {
    await t.query(
      `insert into settings (key, value, updated_at) values ('backupKeep', '"seven"', now()) on conflict (key) do update set value = excluded.value`,
    );
    expect((await answer(t.client(ownerToken).GET('/api/settings'))).body.backupKeep).toBe(7);
    await t.query(`delete from settings where key = 'backupKeep'`);
  });

  test('a viewer reads the settings but may not change them', async () => {
    const viewer = await createUser('viewer');
    expect((await t.call('GET', 'settings', { token: viewer.token })).status).toBe(200);
    const refused = await t.call('PATCH', 'settings', { token: viewer.token, body: { backupKeep: 2 } });
    expect(refused.status).toBe(403);
    expect((await answer(t.client(ownerToken).GET('/api/settings'))).body.backupKeep).toBe(7);
  });
});
