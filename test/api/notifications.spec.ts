import type { PeerCounters } from '#libs/contracts/agent-link.js';
import { UsageService } from '../../apps/controller/src/clients/usage.service.js';
import {
  NOTIFICATIONS_MAINTENANCE_QUEUE,
  NOTIFICATIONS_PRUNE_JOB,
  type NotificationsPruned,
} from '../../apps/controller/src/notifications/notifications-maintenance.js';
import type { QueueBackend } from '../../apps/controller/src/queue/queue-backend.js';
import { QUEUE_BACKEND } from '../../apps/controller/src/runtime.js';
import { answer, fixtures } from '../support/fixtures.js';
import { refusal } from '../support/refusal.js';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/** Notifications (docs/notifications.md): webhooks, mail, the switches, and events once per crossing. */
let t: TestPanel;
let ownerToken: string;
const receivers: WebhookReceiver[] = [];
let sink: SmtpSink | undefined;

const { call, typed, createUser, createNodeWithInterface, createClient, accountsOf } = fixtures(() => ({
  t,
  token: ownerToken,
}));

beforeAll(async () => {
  t = await startTestPanel();
  ownerToken = await t.login();
});
afterAll(async () => {
  await t?.stop();
  for (const receiver of receivers) await receiver.close();
  await sink?.close();
});

async function receiver(options: Parameters<typeof startWebhookReceiver>[0] = {}): Promise<WebhookReceiver> {
  const made = await startWebhookReceiver(options);
  receivers.push(made);
  return made;
}

async function allowPrivateTargets(allow: boolean): Promise<void> {
  expect((await answer(typed().PATCH('/api/settings', { body: { allowPrivateTargets: allow } }))).status).toBe(200);
}

/** Creates an endpoint for the receiver and hands the receiver its secret (shown once). */
async function endpointFor(target: WebhookReceiver, events: string[] = []): Promise<{ id: string }> {
  const made = await call('POST', 'webhooks', { name: `hook ${receivers.length}`, url: target.url, events });
  expect(made.status).toBe(201);
  target.secret = made.body.secret as string;
  return made.body as { id: string };
}

async function removeEndpoints(): Promise<void> {
  for (const endpoint of (await call('GET', 'webhooks')).body as { id: string }[])
    expect((await call('DELETE', `webhooks/${endpoint.id}`)).status).toBe(200);
}

describe('webhook endpoints', () => {
  test('private and loopback targets are refused with {error, field} unless private targets are allowed; nothing is stored', async () => {
    for (const url of ['http://127.0.0.1:9/hook', 'http://localhost/hook', 'http://10.1.2.3/x', 'http://[::1]/x']) {
      const refused = await call('POST', 'webhooks', { name: 'inside', url });
      expect([refused.status, refused.body]).toEqual([400, refusal('url', expect.stringMatching(/private targets/))]);
    }
    expect((await call('GET', 'webhooks')).body).toEqual([]);
    for (const [body, field] of [
      [{ name: 'x', url: 'ftp://example.com/' }, 'url'],
      [{ name: 'x', url: 'http://user:pw@example.com/' }, 'url'],
      [{ name: '', url: 'http://example.com/' }, 'name'],
      [{ name: 'x', url: 'http://example.com/', events: ['node.exploded'] }, 'events'],
      [{ name: 'x', url: 'http://example.com/', secret: 'mine' }, 'secret'],
    ] as const) {
      const refused = await call('POST', 'webhooks', body);
      expect([refused.status, refused.body]).toEqual([400, refusal(field)]);
    }
    expect((await call('GET', 'webhooks')).body).toEqual([]);
  });

  test('the secret is shown once at creation and never after; change, delivery log and delete by id', async () => {
    const made = await call('POST', 'webhooks', {
      name: 'ops',
      url: 'https://hooks.example.com/warren',
      events: ['node.offline'],
    });
    expect(made.status).toBe(201);
    expect(made.body).toEqual({
      id: expect.any(String),
      name: 'ops',
      url: 'https://hooks.example.com/warren',
      events: ['node.offline'],
      enabled: true,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const { id, secret } = made.body as { id: string; secret: string };
    const listed = await call('GET', 'webhooks');
    expect(listed.body).toEqual([expect.not.objectContaining({ secret: expect.anything() })]);
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    const changed = await call('PATCH', `webhooks/${id}`, { enabled: false, events: [] });
    expect([changed.status, changed.body.enabled, changed.body.events]).toEqual([200, false, []]);
    expect(JSON.stringify(changed.body)).not.toContain(secret);
    expect((await call('PATCH', `webhooks/${id}`, { url: 'http://127.0.0.1/x' })).body).toEqual(refusal('url'));
    expect((await call('GET', `webhooks/${id}/deliveries`)).body).toEqual([]);
    expect((await call('DELETE', `webhooks/${id}`)).status).toBe(200);
    for (const [method, path] of [
      ['DELETE', `webhooks/${id}`],
      ['PATCH', `webhooks/${id}`],
      ['GET', `webhooks/${id}/deliveries`],
      ['GET', 'webhooks/not-an-id/deliveries'],
    ] as const) {
      const gone = await call(method, path, method === 'PATCH' ? { enabled: true } : undefined);
      expect([gone.status, gone.body]).toEqual([404, refusal('id')]);
    }
  });

  test('admins, resellers and viewers reach no webhook route, nor change the switches', async () => {
    for (const role of ['admin', 'reseller', 'viewer'] as const) {
      const user = await createUser(role);
      const listed = await t.call('GET', '/webhooks', { token: user.token });
      expect(listed.status).toBe(403);
      const made = await t.call('POST', '/webhooks', {
        token: user.token,
        body: { name: 'x', url: 'https://example.com/' },
      });
      expect(made.status).toBe(403);
      const muted = await t.call('PATCH', '/settings/notify', {
        token: user.token,
        body: { switches: [{ kind: 'auth.new-address', channel: 'mail', enabled: false }] },
      });
      expect(muted.status).toBe(403);
    }
  });
});

describe('delivery', () => {
  afterEach(async () => {
    await removeEndpoints();
    await allowPrivateTargets(false);
  });

  test('a test event reaches a local receiver signed over timestamp.body; the delivery log shows the answer', async () => {
    await allowPrivateTargets(true);
    const target = await receiver();
    const endpoint = await endpointFor(target);
    const tested = await call('POST', 'settings/notify/test');
    expect(tested.status).toBe(200);
    expect(tested.body.channels).toEqual(
      expect.arrayContaining([
        { channel: 'webhook', ok: true, error: null },
        // Mail is off here: the test says so instead of reporting a delivery that sent nothing.
        { channel: 'mail', ok: false, error: 'mail is off' },
      ]),
    );
    const [got] = await waitFor('the test event at the receiver', () => target.received.length > 0 && target.received);
    expect(got.verified).toBe(true);
    expect(got.headers['warren-event']).toBe('panel.test');
    expect(got.headers['warren-delivery']).toBe(tested.body.eventId);
    expect(got.headers['warren-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(got.event).toMatchObject({ id: tested.body.eventId, kind: 'panel.test', subject: { type: 'panel' } });
    // Signed with this endpoint's secret and no other.
    const other = target.secret;
    target.secret = 'whsec_wrong';
    expect(
      (await import('#libs/contracts/webhook-signature.js')).verifyWebhook(
        target.secret,
        got.body,
        String(got.headers['warren-signature']),
      ),
    ).toBe(false);
    target.secret = other;
    const log = await waitFor('the attempt in the delivery log', async () => {
      const rows = (await call('GET', `webhooks/${endpoint.id}/deliveries`)).body as unknown[];
      return rows.length > 0 && rows;
    });
    expect(log).toEqual([
      {
        id: expect.any(String),
        eventId: tested.body.eventId,
        kind: 'panel.test',
        attempt: 1,
        status: 204,
        ok: true,
        latencyMs: expect.any(Number),
        error: null,
        at: expect.any(String),
      },
    ]);
  });

  test('an endpoint that never answers delays neither another endpoint nor the API', async () => {
    await allowPrivateTargets(true);
    const stuck = await receiver({ hang: true });
    const quick = await receiver();
    await endpointFor(stuck);
    await endpointFor(quick);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(((await call('POST', 'settings/notify/test')).body as { eventId: string }).eventId);
    await waitFor('every event at the answering endpoint', () => quick.received.length >= ids.length);
    expect(quick.received.map((hook) => hook.event.id).sort()).toEqual([...ids].sort());
    expect(quick.received.every((hook) => hook.verified)).toBe(true);
    // Meanwhile the stuck endpoint holds its requests open, unanswered, and the API answers.
    expect(stuck.pending).toBeGreaterThan(0);
    expect(stuck.received).toEqual([]);
    expect((await call('GET', 'settings')).status).toBe(200);
  });

  test('a target allowed when saved but forbidden at send time is not posted to', async () => {
    await allowPrivateTargets(true);
    const target = await receiver();
    const endpoint = await endpointFor(target);
    await allowPrivateTargets(false);
    await call('POST', 'settings/notify/test');
    const [attempt] = await waitFor('the refused attempt in the log', async () => {
      const rows = (await call('GET', `webhooks/${endpoint.id}/deliveries`)).body as { error: string | null }[];
      return rows.length > 0 && rows;
    });
    expect(attempt).toMatchObject({ status: null, ok: false, error: expect.stringMatching(/forbidden|this host/) });
    expect(target.received).toEqual([]);
  });
});

describe('mail', () => {
  afterAll(async () => {
    await allowPrivateTargets(false);
  });

  test('SMTP settings: the password is write-only, private servers need private targets, the test mail reaches the sink', async () => {
    sink = await startSmtpSink();
    const before = await call('GET', 'settings/mail');
    expect(before.body).toEqual({
      enabled: false,
      host: '',
      port: 587,
      secure: false,
      user: '',
      passwordSet: false,
      from: '',
      recipients: [],
    });
    const refused = await call('PATCH', 'settings/mail', { host: '127.0.0.1', port: sink.port });
    expect([refused.status, refused.body]).toEqual([400, refusal('host')]);
    expect((await call('PATCH', 'settings/mail', { enabled: true })).body).toEqual(refusal('host'));
    expect((await call('GET', 'settings/mail')).body).toEqual(before.body);
    expect((await call('POST', 'settings/mail/test', {})).status).toBe(409);

    await allowPrivateTargets(true);
    const saved = await call('PATCH', 'settings/mail', {
      host: '127.0.0.1',
      port: sink.port,
      user: 'warren',
      password: 'smtp-secret-1',
      from: 'warren@example.com',
      recipients: ['ops@example.com'],
    });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ host: '127.0.0.1', passwordSet: true, enabled: false });
    expect(JSON.stringify(saved.body)).not.toContain('smtp-secret-1');
    expect(JSON.stringify((await call('GET', 'settings/mail')).body)).not.toContain('smtp-secret-1');

    const tested = await call('POST', 'settings/mail/test', { to: 'someone@example.com' });
    expect([tested.status, tested.body]).toEqual([200, { ok: true, error: null }]);
    expect(sink.mails).toEqual([
      expect.objectContaining({
        from: 'warren@example.com',
        to: ['someone@example.com'],
        user: 'warren',
        password: 'smtp-secret-1',
      }),
    ]);
    expect(sink.mails[0].data).toContain('Subject: [Warren] test mail');

    // Enabled, the channel mails events to the recipients.
    expect((await call('PATCH', 'settings/mail', { enabled: true })).status).toBe(200);
    const notified = await call('POST', 'settings/notify/test');
    expect(notified.body.channels).toContainEqual({ channel: 'mail', ok: true, error: null });
    expect(sink.mails[1]).toMatchObject({ to: ['ops@example.com'] });
    expect(sink.mails[1].data).toContain('panel.test');
    expect((await call('PATCH', 'settings/mail', { enabled: false })).status).toBe(200);
  });

  test('a line break cannot ride into the SMTP dialogue through the sender or the user', async () => {
    for (const body of [{ from: 'a@example.com\r\nBcc: x@example.org' }, { user: 'me\r\nRCPT TO:<x@example.org>' }]) {
      const answer = await call('PATCH', 'settings/mail', body);
      expect([answer.status, answer.body.field]).toEqual([400, Object.keys(body)[0]]);
    }
  });

  test('only the owner reaches mail settings and the tests', async () => {
    const admin = await createUser('admin');
    for (const [method, path] of [
      ['GET', '/settings/mail'],
      ['POST', '/settings/mail/test'],
      ['POST', '/settings/notify/test'],
    ] as const)
      expect(
        (await t.call(method, path, { token: admin.token, body: method === 'POST' ? {} : undefined })).status,
      ).toBe(403);
  });
});

describe('switches', () => {
  test('defaults: every kind on webhooks and Telegram, mail for the panel’s own events; a change is kept', async () => {
    const read = await call('GET', 'settings/notify');
    expect(read.body.expiryNoticeDays).toBe(3);
    expect(read.body.channels).toEqual(expect.arrayContaining(['webhook', 'mail']));
    expect(read.body.switches).toContainEqual({ kind: 'client.quota-80', channel: 'mail', enabled: false });
    expect(read.body.switches).toContainEqual({ kind: 'node.offline', channel: 'mail', enabled: true });
    expect(read.body.switches).toContainEqual({ kind: 'client.quota-80', channel: 'webhook', enabled: true });
    const changed = await call('PATCH', 'settings/notify', {
      expiryNoticeDays: 7,
      switches: [{ kind: 'client.quota-80', channel: 'webhook', enabled: false }],
    });
    expect(changed.body.expiryNoticeDays).toBe(7);
    expect(changed.body.switches).toContainEqual({ kind: 'client.quota-80', channel: 'webhook', enabled: false });
    for (const [body, field] of [
      [{ expiryNoticeDays: 0 }, 'expiryNoticeDays'],
      [{ switches: [{ kind: 'nope', channel: 'webhook', enabled: true }] }, 'switches.0.kind'],
      [{ switches: [{ kind: 'node.offline', channel: 'pigeon', enabled: true }] }, 'switches.0.channel'],
    ] as const) {
      const refused = await call('PATCH', 'settings/notify', body);
      expect([refused.status, refused.body.field]).toEqual([400, field]);
    }
    await call('PATCH', 'settings/notify', {
      expiryNoticeDays: 3,
      switches: [{ kind: 'client.quota-80', channel: 'webhook', enabled: true }],
    });
  });
});

describe('retention', () => {
  test('retentionDays: 30 by default, 1..365, kept', async () => {
    expect((await call('GET', 'settings/notify')).body.retentionDays).toBe(30);
    for (const retentionDays of [0, 366, 2.5, null, '7']) {
      const refused = await call('PATCH', 'settings/notify', { retentionDays });
      expect([refused.status, refused.body]).toEqual([400, refusal('retentionDays')]);
    }
    expect((await call('PATCH', 'settings/notify', { retentionDays: 7 })).body.retentionDays).toBe(7);
    expect((await call('GET', 'settings/notify')).body.retentionDays).toBe(7);
  });

  test('the scheduled prune drops delivered events and delivery attempts past retention, and attempts past 50 per endpoint', async () => {
    expect((await call('PATCH', 'settings/notify', { retentionDays: 7 })).status).toBe(200);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(((await call('POST', 'settings/notify/test')).body as { eventId: string }).eventId);
    const [old, older, recent] = ids;
    await t.query(`update notification_events set occurred_at = now() - interval '8 days' where id = $1`, [old]);
    await t.query(`update notification_events set occurred_at = now() - interval '300 days' where id = $1`, [older]);
    // Two endpoints that post nothing (disabled), each with a log made in SQL.
    const quiet = (
      await call('POST', 'webhooks', { name: 'quiet', url: 'https://hooks.example.com/a', enabled: false })
    ).body as { id: string };
    const busy = (await call('POST', 'webhooks', { name: 'busy', url: 'https://hooks.example.com/b', enabled: false }))
      .body as { id: string };
    const logRows = (endpoint: string, count: number, age: string) =>
      t.query(
        `insert into webhook_deliveries (id, endpoint_id, event_id, kind, attempt, status, latency_ms, error, at)
         select gen_random_uuid(), $1, gen_random_uuid(), 'panel.test', 1, 204, 5, null, now() - $2::interval - n * interval '1 second'
           from generate_series(1, $3::int) as n`,
        [endpoint, age, count],
      );
    await logRows(quiet.id, 3, '1 hour');
    await logRows(quiet.id, 4, '8 days');
    await logRows(busy.id, 60, '1 minute');

    const queue = t.panel.app.get<QueueBackend>(QUEUE_BACKEND).queue(NOTIFICATIONS_MAINTENANCE_QUEUE);
    await waitFor('the notification retention job scheduler', async () =>
      (await queue.getJobScheduler(NOTIFICATIONS_PRUNE_JOB)) ? true : undefined,
    );
    const job = await queue.add(NOTIFICATIONS_PRUNE_JOB, {});
    const state = await waitFor('the prune to finish', async () => {
      const current = await job.getState();
      return current === 'completed' || current === 'failed' ? current : undefined;
    });
    expect(state).toBe('completed');
    const pruned = (await queue.getJob(job.id!))?.returnvalue as NotificationsPruned;
    expect(pruned.events).toBeGreaterThanOrEqual(2);
    expect(pruned.channels.webhook).toBeGreaterThanOrEqual(14);

    const left = await t.query<{ id: string }>(`select id from notification_events where id = any($1::uuid[])`, [
      [old, older, recent],
    ]);
    expect(left.map((row) => row.id)).toEqual([recent]);
    const logs = await t.query<{ endpoint_id: string; n: number }>(
      `select endpoint_id, count(*)::int as n from webhook_deliveries
        where endpoint_id = any($1::uuid[]) group by endpoint_id`,
      [[quiet.id, busy.id]],
    );
    expect(Object.fromEntries(logs.map((row) => [row.endpoint_id, row.n]))).toEqual({ [quiet.id]: 3, [busy.id]: 50 });
    expect((await call('GET', `webhooks/${busy.id}/deliveries`)).body).toHaveLength(50);

    await removeEndpoints();
    await call('PATCH', 'settings/notify', { retentionDays: 30 });
  });
});

describe('events once per crossing', () => {
  const peer = (ifname: string, publicKey: string, bytes: number): PeerCounters => ({
    interface: ifname,
    publicKey,
    rxBytes: bytes,
    txBytes: 0,
    lastHandshake: Date.now() - 1000,
    endpoint: null,
  });

  test('quota 80/95/100 % fire once each, whatever batches repeat; the client’s owner and telegramId ride along', async () => {
    await allowPrivateTargets(true);
    const target = await receiver();
    await endpointFor(target, ['client.quota-80', 'client.quota-95', 'client.quota-exhausted']);
    const usage = t.panel.app.get(UsageService);
    const { node, iface } = await createNodeWithInterface();
    const client = await createClient({ interfaceIds: [iface.id], quotaBytes: 1000, telegramId: 424242 });
    const [key] = (await accountsOf(client.id)).map((account) => account.public_key as string);
    const batches: [number, number][] = [
      [1, 500],
      [2, 310], // 81 %: crosses 80
      [2, 310], // the same batch again: counted once, so no crossing either
      [3, 100], // 91 %
      [4, 50], // 96 %: crosses 95
      [5, 100], // 106 %: exhausted
      [6, 100],
    ];
    for (const [seq, bytes] of batches) await usage.recordCounters(node.id, seq, [peer(iface.name, key, bytes)]);
    await waitFor('three crossings at the receiver', () => target.received.length >= 3);
    // The outbox marks what it handed over: the same events are not picked again every tick.
    await waitFor('the three events marked dispatched', async () => {
      const [row] = await t.query<{ n: number }>(
        `select count(*)::int as n from notification_events where subject_id = $1 and dispatched_at is not null`,
        [client.id],
      );
      return row.n === 3;
    });
    const rows = await t.query<{ kind: string }>(
      `select kind from notification_events where subject_id = $1 order by occurred_at, kind`,
      [client.id],
    );
    expect(rows.map((row) => row.kind)).toEqual(['client.quota-80', 'client.quota-95', 'client.quota-exhausted']);
    expect(target.received.map((hook) => hook.event.kind).sort()).toEqual([
      'client.quota-80',
      'client.quota-95',
      'client.quota-exhausted',
    ]);
    expect(target.received.every((hook) => hook.verified)).toBe(true);
    expect(target.received[0].event).toMatchObject({
      subject: { type: 'client', id: client.id, name: client.name },
      telegramId: '424242',
      ownerId: expect.any(String),
      details: expect.objectContaining({ quotaBytes: 1000 }),
    });
    await removeEndpoints();
  });

  test('a password change and a sign-in from a new address are told once', async () => {
    const user = await createUser('admin');
    const changed = await t.call('POST', '/auth/password', {
      token: user.token,
      body: { currentPassword: user.password, newPassword: `${user.password}-2` },
    });
    expect(changed.status).toBe(200);
    const rows = await t.query<{ kind: string; subject_id: string }>(
      `select kind, subject_id from notification_events where subject_id = $1 order by kind`,
      [user.id],
    );
    // createUser signed in once (from 127.0.0.1): a new address, once; then the password change.
    expect(rows.map((row) => row.kind)).toEqual(['auth.new-address', 'auth.password-changed']);
    await t.call('POST', '/auth/login', { body: { username: user.username, password: `${user.password}-2` } });
    expect(
      await t.query(`select 1 from notification_events where subject_id = $1 and kind = 'auth.new-address'`, [user.id]),
    ).toHaveLength(1);
  });
});
