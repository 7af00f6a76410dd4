import { randomUUID } from 'node:crypto';
import { AMNEZIA_BOUNDS, JMAX_MIN_GAP } from '../../libs/wireguard/amnezia.js';
import { answer, fixtures } from '../support/fixtures.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';
import { refusal } from '../support/refusal.js';
import { unzip } from '../support/zip.js';

let t: TestPanel;
let token: string;

beforeAll(async () => {
  t = await startTestPanel();
  token = await t.login();
});
afterAll(async () => {
  await t?.stop();
});

const { call, typed, createInterface, createHost, createClient } = fixtures(() => ({ t, token }));

/** A profile's `Key = value` lines per section. */
function parseProfile(body: string): { Interface: Record<string, string>; Peer: Record<string, string> } {
  const sections: Record<string, Record<string, string>> = {};
  let current = '';
  for (const line of body.split('\n')) {
    const header = /^\[(\w+)\]$/.exec(line);
    if (header) sections[(current = header[1])] = {};
    const pair = /^(\w+) = (.*)$/.exec(line);
    if (pair) sections[current][pair[1]] = pair[2];
  }
  return sections as ReturnType<typeof parseProfile>;
}

describe('profiles', () => {
  let standard: { id: string; name: string; publicKey: string; listenPort: number; dns: string[]; mtu: number };
  let amnezia: { id: string; name: string; publicKey: string; listenPort: number; awg: Record<string, number> };
  let client: { id: string; name: string; devices: { id: string; name: string }[] };
  let hosts: { id: string; name: string }[];

  beforeAll(async () => {
    standard = await createInterface({ dns: ['1.1.1.1', '9.9.9.9'], mtu: 1380 });
    amnezia = (await createInterface({ mode: 'amnezia', endpointHost: '2001:db8::1' })) as typeof amnezia;
    hosts = [
      await createHost({ interfaceId: standard.id, name: 'cdn', address: 'cdn.example.net', port: 443, priority: 10 }),
      await createHost({ interfaceId: standard.id, name: 'direct', address: '203.0.113.7', port: 0, priority: 5 }),
      await createHost({ interfaceId: standard.id, name: 'off', address: 'off.example.net', enabled: false }),
    ];
    client = await createClient({
      name: 'Zoë Müller',
      interfaceIds: [standard.id, amnezia.id],
      deviceLimit: 2,
      deviceNames: ['phone', 'laptop'],
    });
  });

  async function secretsOf(deviceId: string) {
    return t.query<Record<string, string>>('select * from accounts where device_id = $1', [deviceId]);
  }

  test('GET /api/devices/{id}/profiles: one per account and enabled host (or the interface endpoint)', async () => {
    const device = client.devices[0];
    const response = await answer(typed().GET('/api/devices/{id}/profiles', { params: { path: { id: device.id } } }));
    expect(response.status).toBe(200);
    const profiles = response.body as {
      filename: string;
      mimeType: string;
      body: string;
      hostId: string | null;
      hostName: string;
      interfaceId: string;
    }[];
    // Two enabled hosts on the standard interface, none on the amnezia one (its own endpoint).
    expect(profiles.map((profile) => [profile.interfaceId, profile.hostName, profile.hostId])).toEqual(
      expect.arrayContaining([
        [standard.id, 'cdn', hosts[0].id],
        [standard.id, 'direct', hosts[1].id],
        [amnezia.id, 'default', null],
      ]),
    );
    expect(profiles).toHaveLength(3);
    const accounts = await secretsOf(device.id);
    for (const profile of profiles) {
      expect(profile.mimeType).toBe('application/x-wireguard-config');
      expect(profile.filename).toMatch(/^[A-Za-z0-9_.-]{1,15}\.conf$/);
      const account = accounts.find((row) => row.interface_id === profile.interfaceId)!;
      const parsed = parseProfile(profile.body);
      expect(parsed.Interface).toMatchObject({ PrivateKey: account.private_key, Address: `${account.ip}/32` });
      expect(parsed.Peer).toMatchObject({
        PresharedKey: account.preshared_key,
        AllowedIPs: '0.0.0.0/0, ::/0',
        PersistentKeepalive: '25',
      });
      if (profile.interfaceId === standard.id) {
        expect(parsed.Interface).toMatchObject({ DNS: '1.1.1.1, 9.9.9.9', MTU: '1380' });
        expect(parsed.Peer.PublicKey).toBe(standard.publicKey);
        expect(parsed.Peer.Endpoint).toBe(
          profile.hostName === 'cdn' ? 'cdn.example.net:443' : `203.0.113.7:${standard.listenPort}`,
        );
        expect(parsed.Interface.Jc).toBeUndefined();
      } else {
        expect(parsed.Peer.PublicKey).toBe(amnezia.publicKey);
        expect(parsed.Peer.Endpoint).toBe(`[2001:db8::1]:${amnezia.listenPort}`);
      }
    }
    expect(new Set(profiles.map((profile) => profile.filename)).size).toBe(3);
  });

  test('AmneziaWG profiles carry Jc, Jmin, Jmax, S1, S2, H1..H4 of their interface, within bounds', async () => {
    const profiles = (
      await answer(typed().GET('/api/devices/{id}/profiles', { params: { path: { id: client.devices[1].id } } }))
    ).body as { interfaceId: string; body: string }[];
    const profile = profiles.find((entry) => entry.interfaceId === amnezia.id)!;
    const fields = parseProfile(profile.body).Interface;
    const value = (key: string) => Number(fields[key]);
    for (const [key, bounds] of Object.entries(AMNEZIA_BOUNDS)) {
      const field = key[0].toUpperCase() + key.slice(1);
      expect(Number.isInteger(value(field))).toBe(true);
      expect(value(field)).toBeGreaterThanOrEqual(bounds[0]);
      expect(value(field)).toBeLessThanOrEqual(bounds[1]);
      expect(value(field)).toBe(amnezia.awg[key]);
    }
    expect(value('Jmax')).toBeGreaterThanOrEqual(value('Jmin') + JMAX_MIN_GAP);
    expect(value('S2') - value('S1')).not.toBe(56);
  });

  test('GET /api/clients/{id}/configs: every profile per device and host, as JSON', async () => {
    const response = await call('GET', `clients/${client.id}/configs`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ clientId: client.id, clientName: 'Zoë Müller' });
    expect(response.body.devices.map((device: { deviceName: string }) => device.deviceName)).toEqual([
      'phone',
      'laptop',
    ]);
    for (const device of response.body.devices) {
      expect(device.profiles).toHaveLength(3);
      const own = (
        await answer(typed().GET('/api/devices/{id}/profiles', { params: { path: { id: device.deviceId } } }))
      ).body;
      expect(device.profiles).toEqual(own);
    }
  });

  test('?format=zip: an attachment of .conf files with unique names, the same bodies, mode 0600', async () => {
    const response = await fetch(`${t.api}/clients/${client.id}/configs?format=zip`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/zip');
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="Zoe_Muller-configs.zip"');
    const entries = unzip(Buffer.from(await response.arrayBuffer()));
    const json = (await call('GET', `clients/${client.id}/configs`)).body;
    const profiles = json.devices.flatMap(
      (device: { profiles: { filename: string; body: string }[] }) => device.profiles,
    );
    expect(entries).toHaveLength(6);
    expect(new Set(entries.map((entry) => entry.name)).size).toBe(6);
    expect(entries.map((entry) => entry.body).sort()).toEqual(
      profiles.map((profile: { body: string }) => profile.body).sort(),
    );
    for (const entry of entries) {
      expect(entry.name).toMatch(/^[A-Za-z0-9_.=+-]{1,15}\.conf$/);
      expect(entry.mode & 0o777).toBe(0o600);
    }
  });

  test('a device without accounts has no profiles; a client without devices has an empty list', async () => {
    const lonely = await createInterface();
    const other = await createClient({ interfaceIds: [lonely.id], deviceLimit: 0 });
    await t.query('delete from accounts where device_id = $1', [other.devices[0].id]);
    expect(
      (await answer(typed().GET('/api/devices/{id}/profiles', { params: { path: { id: other.devices[0].id } } }))).body,
    ).toEqual([]);
    await answer(typed().DELETE('/api/devices/{id}', { params: { path: { id: other.devices[0].id } } }));
    expect(
      (await answer(typed().GET('/api/clients/{id}/configs', { params: { path: { id: other.id } } }))).body,
    ).toEqual({ clientId: other.id, clientName: other.name, devices: [] });
  });

  test('unknown ids are 404; an unknown format is a 400', async () => {
    expect((await call('GET', `devices/${randomUUID()}/profiles`)).body).toEqual(refusal('id', 'device not found'));
    expect((await call('GET', 'devices/nope/profiles')).status).toBe(404);
    expect((await call('GET', `clients/${randomUUID()}/configs`)).body).toEqual(refusal('id', 'client not found'));
    expect((await call('GET', `clients/${randomUUID()}/configs?format=zip`)).status).toBe(404);
    const bad = await call('GET', `clients/${client.id}/configs?format=tar`);
    expect(bad).toMatchObject({ status: 400, body: { field: 'format' } });
  });

  test('private and preshared keys never appear in client or device JSON', async () => {
    const all = await t.query<{ private_key: string; preshared_key: string }>(
      'select private_key, preshared_key from accounts',
    );
    const json = JSON.stringify([
      (await answer(typed().GET('/api/clients/{id}', { params: { path: { id: client.id } } }))).body,
      (await call('GET', 'clients?perPage=200')).body,
      (await call('PATCH', `clients/${client.id}`, { note: 'x' })).body,
      (await call('POST', `clients/${client.id}/reset`)).body,
    ]);
    for (const row of all) {
      expect(json).not.toContain(row.private_key);
      expect(json).not.toContain(row.preshared_key);
    }
  });
});
