import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { AMNEZIA_BOUNDS } from '../../libs/wireguard/amnezia.js';
import { publicKeyFromPrivate } from '../../libs/wireguard/keys.js';
import { requireTools, TestNamespace } from '../support/netns.js';
import { fixtures } from '../support/fixtures.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';

/**
 * Rendered profiles fed to the real tools: `wg-quick strip` reads each profile under its own
 * file name (which must therefore be a valid interface name), `wg setconf` loads the result into
 * a wireguard-go interface in a network namespace of this test's own, and `wg show dump` proves
 * the keys and endpoint arrived as rendered; the profile's Address goes on with `ip address add`.
 * Needs root and the Debian packages wireguard-tools, wireguard-go and iproute2 (.ci/run
 * installs them). Nothing leaves the namespace: peers are never contacted.
 */

const exec = promisify(execFile);
let ns: TestNamespace | undefined;
let workDir: string;
let t: TestPanel;
let token: string;

beforeAll(async () => {
  if (process.getuid?.() !== 0) throw new Error('profiles-wg.spec needs root (network namespaces, wireguard-go)');
  await requireTools(['wg', 'wg-quick', 'wireguard-go', 'ip'], 'wireguard-tools wireguard-go iproute2');
  workDir = mkdtempSync(join(tmpdir(), 'warren-wg-'));
  ns = await TestNamespace.create();
  t = await startTestPanel();
  token = await t.login();
});

afterAll(async () => {
  await ns?.destroy().catch(() => undefined);
  if (workDir) rmSync(workDir, { recursive: true, force: true });
  await t?.stop();
});

const { call, createInterface, createHost, createClient } = fixtures(() => ({ t, token }));

interface Profile {
  filename: string;
  body: string;
  hostName: string;
  interfaceId: string;
}

test('every profile of a client is accepted by wg-quick strip and wg setconf with the right keys, endpoint and address', async () => {
  const iface = await createInterface({
    name: 'wge2e',
    mode: 'standard',
    listenPort: 51900,
    subnet: '10.77.0.0/24',
    endpointHost: '192.0.2.1',
    dns: ['1.1.1.1'],
  });
  for (const host of [
    { name: 'edge', address: '198.51.100.9', port: 443, priority: 1 },
    { name: 'v6', address: '2001:db8::7', port: 0 },
  ]) {
    await createHost({ interfaceId: iface.id, ...host });
  }
  // A random client name gives profile names (and so interface names) no other run shares.
  const client = await createClient({
    name: `e2e-${randomUUID().slice(0, 6)}`,
    interfaceIds: [iface.id],
    deviceLimit: 2,
    deviceNames: ['phone', 'laptop'],
  });
  const configs = await call('GET', `clients/${client.id}/configs`);
  expect(configs.status).toBe(200);

  const accounts = await t.query<{ device_id: string; ip: string; private_key: string; preshared_key: string }>(
    'select a.device_id, a.ip, a.private_key, a.preshared_key from accounts a join devices d on d.id = a.device_id where d.client_id = $1',
    [client.id],
  );
  let applied = 0;
  for (const device of configs.body.devices as { deviceId: string; profiles: Profile[] }[]) {
    const account = accounts.find((row) => row.device_id === device.deviceId)!;
    expect(device.profiles).toHaveLength(2);
    for (const profile of device.profiles) {
      const ifname = profile.filename.replace(/\.conf$/, '');
      expect(ifname).toMatch(/^[a-zA-Z0-9_=+.-]{1,15}$/);
      const path = join(workDir, profile.filename);
      writeFileSync(path, profile.body, { mode: 0o600 });
      const { stdout: stripped } = await exec('wg-quick', ['strip', path]);
      expect(stripped).not.toMatch(/^(Address|DNS|MTU)\s*=/m);
      const strippedPath = join(workDir, `${ifname}.stripped`);
      writeFileSync(strippedPath, stripped, { mode: 0o600 });

      await ns!.wireguardGo(ifname);
      await ns!.exec('wg', 'setconf', ifname, strippedPath);
      const [self, peer, ...rest] = (await ns!.exec('wg', 'show', ifname, 'dump'))
        .trim()
        .split('\n')
        .map((line) => line.split('\t'));
      expect(rest).toEqual([]);
      expect(self[0]).toBe(account.private_key);
      expect(self[1]).toBe(publicKeyFromPrivate(account.private_key));
      expect(peer[0]).toBe(iface.publicKey);
      expect(peer[1]).toBe(account.preshared_key);
      expect(peer[2]).toBe(profile.hostName === 'edge' ? '198.51.100.9:443' : '[2001:db8::7]:51900');
      expect(peer[3]).toBe('0.0.0.0/0,::/0');
      expect(peer[7]).toBe('25');

      // What wg-quick up would do with the Address line.
      const address = /^Address = (.+)$/m.exec(profile.body)![1];
      expect(address).toBe(`${account.ip}/32`);
      await ns!.exec('ip', 'address', 'add', address, 'dev', ifname);
      await ns!.exec('ip', 'link', 'set', ifname, 'up');
      expect(await ns!.exec('ip', '-4', '-o', 'address', 'show', 'dev', ifname)).toContain(`inet ${address}`);
      applied++;
    }
  }
  expect(applied).toBe(4);
});

test('an AmneziaWG profile carries Jc, Jmin, Jmax, S1, S2, H1..H4 within bounds (text only: no AmneziaWG tools here)', async () => {
  const iface = await createInterface({
    name: 'awge2e',
    mode: 'amnezia',
    listenPort: 51901,
    subnet: '10.78.0.0/24',
    endpointHost: '192.0.2.2',
  });
  const client = await createClient({ name: 'awg-e2e', interfaceIds: [iface.id] });
  const [profile] = (await call('GET', `devices/${client.devices[0].id}/profiles`)).body as Profile[];
  for (const [key, [min, max]] of Object.entries(AMNEZIA_BOUNDS)) {
    const line = new RegExp(`^${key[0].toUpperCase()}${key.slice(1)} = (\\d+)$`, 'm').exec(profile.body);
    expect({ key, present: line !== null }).toEqual({ key, present: true });
    const value = Number(line![1]);
    expect(value).toBeGreaterThanOrEqual(min);
    expect(value).toBeLessThanOrEqual(max);
  }
  // The keys sit in [Interface], before [Peer].
  expect(profile.body.indexOf('Jc = ')).toBeLessThan(profile.body.indexOf('[Peer]'));
});
