import type { PeerCounters } from '#libs/contracts/agent-link.js';
import { closeLinks, helloAs, type OpenLink } from '../support/agent-link-client.js';
import { freshInterface } from '../support/fixtures.js';
import { restartablePanel } from '../support/panel-process-api.js';
import type { TestPanel } from '../support/test-panel.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * Quota crossings across a controller killed with SIGKILL (no shutdown) and started again
 * (docs/notifications.md, "Once per crossing"): each crossing is recorded once and reaches a
 * webhook under one event id, whether the kill landed before the batch committed (the agent
 * sends it again), between the commit and the hand-over to the queue, or after. On Redis: a
 * remote node's agent needs its queue user there.
 */
let target: WebhookReceiver;
// A remote node's agent needs Redis (its queue user); both runs share one prefix.
const session = restartablePanel({ name: 'notify-restart', redis: true });
const call: ReturnType<typeof session>['call'] = (...args) => session().call(...args);

/** What the agent-link helpers need of a panel: its API address and an unchecked call. */
function linkTarget(): TestPanel {
  return {
    api: `${session().panel.origin}/api`,
    call: (method: string, path: string, options: { body?: unknown } = {}) =>
      call(method, path.replace(/^\//, ''), options.body),
  } as unknown as TestPanel;
}

beforeAll(async () => {
  target = await startWebhookReceiver();
});

afterAll(async () => {
  closeLinks();
  await target?.close();
});

test('quota crossings fire once each across a controller SIGKILL and restart', async () => {
  expect((await call('PATCH', 'settings', { allowPrivateTargets: true })).status).toBe(200);
  const hook = await call('POST', 'webhooks', {
    name: 'restart',
    url: target.url,
    events: ['client.quota-80', 'client.quota-95', 'client.quota-exhausted'],
  });
  expect(hook.status).toBe(201);
  target.secret = hook.body.secret as string;
  const node = await call('POST', 'nodes', { name: 'restart-node', address: '192.0.2.10' });
  expect(node.status).toBe(201);
  const iface = await call('POST', 'interfaces', freshInterface({ nodeId: node.body.id as string }));
  expect(iface.status).toBe(201);
  const client = await call('POST', 'clients', { interfaceIds: [iface.body.id], quotaBytes: 1000 });
  expect(client.status).toBe(201);
  const { rows } = await session().db.query<{ public_key: string }>(
    `select a.public_key from accounts a join devices d on d.id = a.device_id where d.client_id = $1`,
    [client.body.id],
  );
  const peer = (bytes: number): PeerCounters => ({
    interface: iface.body.name as string,
    publicKey: rows[0].public_key,
    rxBytes: bytes,
    txBytes: 0,
    lastHandshake: Date.now() - 1000,
    endpoint: null,
  });
  const counters = (link: OpenLink, seq: number, bytes: number) =>
    link.send({ type: 'counters', seq, at: Date.now(), peers: [peer(bytes)] });

  const { credential } = (await call('POST', 'agent/enrol', { secret: node.body.enrolment.secret })).body as {
    credential: string;
  };
  expect(credential).toEqual(expect.any(String));
  let link = await helloAs(linkTarget(), credential);
  counters(link, 1, 850); // 85 %: crosses 80
  await link.next('ack');
  await waitFor('quota-80 at the receiver', () => target.received.length === 1);

  // Batch 2 crosses 95 %; the controller is killed the moment it is sent, not waiting for its ack.
  counters(link, 2, 110);
  await session().kill();
  closeLinks();

  await session().restart();
  link = await helloAs(linkTarget(), credential);
  const welcome = link.messages.find((message) => message.type === 'welcome') as { countersSeq: number };
  // An agent sends again what the controller has not recorded; sending a recorded one again is harmless too.
  counters(link, 2, 110);
  await link.next('ack');
  counters(link, 3, 100); // 106 %: exhausted
  await link.next('ack');

  const kinds = ['client.quota-80', 'client.quota-95', 'client.quota-exhausted'];
  await waitFor('every crossing at the receiver', () =>
    kinds.every((kind) => target.received.some((got) => got.event.kind === kind)),
  );
  const recorded = await session().db.query<{ kind: string; n: string }>(
    `select kind, count(*) as n from notification_events where subject_id = $1 group by kind order by kind`,
    [client.body.id],
  );
  expect(recorded.rows.map((row) => [row.kind, Number(row.n)])).toEqual([
    ['client.quota-80', 1],
    ['client.quota-95', 1],
    ['client.quota-exhausted', 1],
  ]);
  // One event id per kind at the receiver (a retry of a POST the kill cut short carries the same id).
  for (const kind of kinds) {
    const ids = new Set(target.received.filter((got) => got.event.kind === kind).map((got) => got.event.id));
    expect([kind, ids.size]).toEqual([kind, 1]);
  }
  expect(target.received.every((got) => got.verified)).toBe(true);
  expect(welcome.countersSeq).toBeGreaterThanOrEqual(1);
}, 300_000);
