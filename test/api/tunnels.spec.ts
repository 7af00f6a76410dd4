import { randomUUID } from 'node:crypto';
import { fixtures } from '../support/fixtures.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';

/**
 * Restart, stop and start (docs/interfaces.md, "Restart, stop, start") and the interface's server
 * profile, as the API and the database see them: revisions, the stored serial and flag, refusals
 * that change nothing. On real tunnels: test/e2e/tunnel-controls.spec.ts.
 */
let t: TestPanel;
let token: string;

beforeAll(async () => {
  t = await startTestPanel();
  token = await t.login();
});
afterAll(async () => {
  await t?.stop();
});

const { call, createNodeWithInterface, createInterface, createClient, accountsOf, getNode, revision } = fixtures(
  () => ({ t, token }),
);

async function serial(interfaceId: string): Promise<number> {
  const [row] = await t.query<{ restart_serial: number }>('select restart_serial from interfaces where id = $1', [
    interfaceId,
  ]);
  return row.restart_serial;
}

test("an interface's restart moves its serial and the node's revision by one; refusals change nothing", async () => {
  const { node, iface } = await createNodeWithInterface();
  const before = await revision(node.id);
  const restarted = await call('POST', `interfaces/${iface.id}/restart`);
  expect(restarted.status).toBe(200);
  expect(restarted.body).toEqual({ id: iface.id, nodeId: node.id, revision: before + 1 });
  expect(await serial(iface.id)).toBe(1);
  expect(await revision(node.id)).toBe(before + 1);

  for (const id of [randomUUID(), 'not-an-id']) {
    const missing = await call('POST', `interfaces/${id}/restart`);
    expect([missing.status, missing.body.field]).toEqual([404, 'id']);
  }
  const disabled = await createInterface({ nodeId: node.id, enabled: false });
  const atRevision = await revision(node.id);
  const refused = await call('POST', `interfaces/${disabled.id}/restart`);
  expect([refused.status, refused.body.field]).toEqual([409, 'id']);
  expect(await serial(disabled.id)).toBe(0);
  expect(await revision(node.id)).toBe(atRevision);
});

test("stop keeps the node's tunnels stopped until start; asking twice bumps nothing; restarts wait for start", async () => {
  const { node, iface } = await createNodeWithInterface();
  const r0 = await revision(node.id);
  const stopped = await call('POST', 'tunnels/stop', { nodeId: node.id });
  expect(stopped.status).toBe(200);
  expect(stopped.body).toEqual({ nodeId: node.id, tunnelsStopped: true, interfaces: 1, revision: r0 + 1 });
  expect((await getNode(node.id)).tunnelsStopped).toBe(true);
  const again = await call('POST', 'tunnels/stop', { nodeId: node.id });
  expect(again.body).toMatchObject({ tunnelsStopped: true, revision: null });
  expect(await revision(node.id)).toBe(r0 + 1);

  const nodeRestart = await call('POST', 'tunnels/restart', { nodeId: node.id });
  expect([nodeRestart.status, nodeRestart.body.field]).toEqual([409, 'nodeId']);
  const ifaceRestart = await call('POST', `interfaces/${iface.id}/restart`);
  expect([ifaceRestart.status, ifaceRestart.body.field]).toEqual([409, 'id']);
  expect(await serial(iface.id)).toBe(0);

  const started = await call('POST', 'tunnels/start', { nodeId: node.id });
  expect(started.body).toEqual({ nodeId: node.id, tunnelsStopped: false, interfaces: 1, revision: r0 + 2 });
  expect((await getNode(node.id)).tunnelsStopped).toBe(false);
  const restarted = await call('POST', 'tunnels/restart', { nodeId: node.id });
  expect(restarted.body).toEqual({ nodeId: node.id, tunnelsStopped: false, interfaces: 1, revision: r0 + 3 });
  expect(await serial(iface.id)).toBe(1);
});

test('an unknown or malformed node is 404 nodeId, and a wrong body 400, with nothing changed', async () => {
  const { node } = await createNodeWithInterface();
  const before = await revision(node.id);
  for (const nodeId of [randomUUID(), 'nope']) {
    for (const action of ['restart', 'stop', 'start']) {
      const answer = await call('POST', `tunnels/${action}`, { nodeId });
      expect([answer.status, answer.body.field]).toEqual([404, 'nodeId']);
    }
  }
  const typed = await call('POST', 'tunnels/stop', { nodeId: 7 });
  expect([typed.status, typed.body.field]).toEqual([400, 'nodeId']);
  const unknown = await call('POST', 'tunnels/stop', { nodeId: node.id, force: true });
  expect([unknown.status, unknown.body.field]).toEqual([400, 'force']);
  expect(await revision(node.id)).toBe(before);
  expect((await getNode(node.id)).tunnelsStopped).toBe(false);
});

test('the profile is the server side with its peers, and neither the private key nor a preshared key', async () => {
  const { iface } = await createNodeWithInterface({ interface: { listenPort: 51999, mtu: 1380 } });
  const client = await createClient({ interfaceIds: [iface.id] });
  const [account] = await accountsOf(client.id);
  const answer = await call('GET', `interfaces/${iface.id}/profile`);
  expect(answer.status).toBe(200);
  expect(answer.body).toMatchObject({ id: iface.id, filename: `${iface.name}.conf`, mimeType: 'text/plain', peers: 1 });
  const body = answer.body.body as string;
  expect(body).toContain(`Address = ${iface.gateway}/${iface.subnet.split('/')[1]}`);
  expect(body).toContain('ListenPort = 51999\nMTU = 1380');
  expect(body).toContain(`[Peer]\nPublicKey = ${account.public_key}\nAllowedIPs = ${account.ip}/32\n`);
  const [secrets] = await t.query<{ private_key: string }>('select private_key from interfaces where id = $1', [
    iface.id,
  ]);
  expect(body).not.toContain(secrets.private_key);
  expect(body).not.toContain(account.preshared_key);
  expect(body).not.toMatch(/^PrivateKey/m);
  const missing = await call('GET', `interfaces/${randomUUID()}/profile`);
  expect([missing.status, missing.body.field]).toEqual([404, 'id']);
});
