import { randomUUID } from 'node:crypto';
import { answer, fixtures, signedInPanel } from '../support/fixtures.js';
import { unzip } from '../support/zip.js';

/**
 * GET /api/devices/{id}/profiles?format=zip: a device's profiles as one download (the web panel's
 * "Profiles" button), authorized exactly as the JSON answer of the same route.
 */
const session = signedInPanel();
const { call, typed, createInterface, createHost, createClient, createUser } = fixtures(session);

const profilesOf = (id: string, bearer: string | null, format?: string) =>
  fetch(`${session().t.api}/devices/${id}/profiles${format ? `?format=${format}` : ''}`, {
    headers: bearer ? { authorization: `Bearer ${bearer}` } : {},
  });

describe('a device’s profiles as a zip', () => {
  let deviceId = '';

  beforeAll(async () => {
    const first = await createInterface();
    const second = await createInterface();
    await createHost({ interfaceId: first.id, name: 'cdn', address: 'cdn.example.net', port: 443 });
    await createHost({ interfaceId: first.id, name: 'direct', address: '203.0.113.7' });
    const client = await createClient({
      name: 'Zoë Müller',
      interfaceIds: [first.id, second.id],
      deviceLimit: 2,
      deviceNames: ['phone', 'laptop'],
    });
    deviceId = client.devices.find((device) => device.name === 'phone')!.id;
  });

  test('the same .conf bodies as the JSON answer, names unique, mode 0600, named after client and device', async () => {
    const response = await profilesOf(deviceId, session().token, 'zip');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/zip');
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="Zoe_Muller-phone-profiles.zip"');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const entries = unzip(Buffer.from(await response.arrayBuffer()));
    const json = (await answer(typed().GET('/api/devices/{id}/profiles', { params: { path: { id: deviceId } } })))
      .body as { filename: string; body: string }[];
    // Two hosts on the first interface, the second interface's own endpoint: three profiles, this device's only.
    expect(json).toHaveLength(3);
    expect(entries.map((entry) => entry.name).sort()).toEqual(json.map((profile) => profile.filename).sort());
    expect(entries.map((entry) => entry.body).sort()).toEqual(json.map((profile) => profile.body).sort());
    for (const entry of entries) expect(entry.mode & 0o777).toBe(0o600);
  });

  test('refused exactly as the JSON answer: no session, a viewer, an unknown or malformed id', async () => {
    const viewer = await createUser('viewer');
    const admin = await createUser('admin');
    const cases: [string, string | null, number][] = [
      [deviceId, null, 401],
      [deviceId, viewer.token, 403],
      [deviceId, admin.token, 200],
      [randomUUID(), session().token, 404],
      ['not-an-id', session().token, 404],
    ];
    for (const [id, bearer, status] of cases) {
      const json = await profilesOf(id, bearer);
      const zip = await profilesOf(id, bearer, 'zip');
      expect({ id, bearer, json: json.status, zip: zip.status }).toEqual({ id, bearer, json: status, zip: status });
      if (status !== 200) expect(await zip.json()).toEqual(await json.json());
    }
  });

  test('an unknown format is a 400 naming format', async () => {
    const response = await call('GET', `devices/${deviceId}/profiles?format=tar`);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ field: 'format' });
  });
});
