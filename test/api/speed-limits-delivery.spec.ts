import { applyJobSchema } from '#libs/contracts/node-queue.js';
import { fixtures, signedInPanel } from '../support/fixtures.js';
import { currentApplyJob } from '../support/node-queue.js';

/**
 * A client's `rateBitsPerSec` reaches its nodes in the apply job (the host side is
 * test/e2e/speed-limits.spec.ts): per interface, one entry per limited client with its devices'
 * addresses there; a new rate is a new revision carrying it; 0 (unmetered) and inactive clients are
 * absent.
 */

const session = signedInPanel();
const { createNodeWithInterface, createClient, call, accountsOf } = fixtures(session);

/** The desired interfaces of the node's current apply job, as the agent validates them. */
async function delivered(nodeId: string) {
  const job = await currentApplyJob(session().t, nodeId);
  return applyJobSchema.parse(job.data).interfaces;
}

test('the speed limit of a client travels with its peers: added, changed, removed', async () => {
  const { node, iface } = await createNodeWithInterface();
  const limited = await createClient({
    interfaceIds: [iface.id],
    rateBitsPerSec: 10_000_000,
    deviceLimit: 2,
    deviceNames: ['phone', 'laptop'],
  });
  await createClient({ interfaceIds: [iface.id] });
  const ips = (await accountsOf(limited.id)).map((a) => a.ip as string);
  expect(ips).toHaveLength(2);

  let [desired] = await delivered(node.id);
  expect(desired.peers).toHaveLength(3);
  // Both devices share the client's one limit; the unmetered client is not listed.
  expect(desired.speedLimits).toEqual([
    { clientId: limited.id, rateBitsPerSec: 10_000_000, ips: expect.arrayContaining(ips) },
  ]);

  expect((await call('PATCH', `clients/${limited.id}`, { rateBitsPerSec: 20_000_000 })).status).toBe(200);
  [desired] = await delivered(node.id);
  expect(desired.speedLimits).toEqual([
    { clientId: limited.id, rateBitsPerSec: 20_000_000, ips: expect.arrayContaining(ips) },
  ]);

  // A disabled client has no peers on the node, so no limit either.
  expect((await call('PATCH', `clients/${limited.id}`, { enabled: false })).status).toBe(200);
  [desired] = await delivered(node.id);
  expect(desired.peers).toHaveLength(1);
  expect(desired.speedLimits).toBeUndefined();

  expect((await call('PATCH', `clients/${limited.id}`, { enabled: true, rateBitsPerSec: 0 })).status).toBe(200);
  [desired] = await delivered(node.id);
  expect(desired.peers).toHaveLength(3);
  expect(desired.speedLimits).toBeUndefined();
});
