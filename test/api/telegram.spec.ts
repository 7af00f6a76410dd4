import { randomUUID } from 'node:crypto';
import type { NotificationEvent } from '#libs/contracts/notification-events.js';
import { TelegramChannel } from '../../apps/controller/src/telegram/telegram-channel.js';
import { TelegramPoller } from '../../apps/controller/src/telegram/telegram-poller.js';
import { fixtures, type ClientView, type TestUser } from '../support/fixtures.js';
import { startTelegramStandIn, type BotApiCall, type TelegramStandIn } from '../support/telegram-stand-in.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';
import { waitFor } from '../support/wait-for.js';

/**
 * The Telegram bot (docs/telegram.md), its real code against a local Bot API stand-in
 * (test/support/telegram-stand-in.ts: Telegram itself is unreachable here) and a real panel:
 * customers' /start, strangers, operators' commands within their roles, deliver() of events,
 * backups to the owner, and a Telegram that fails or hangs.
 */
let t: TestPanel;
let token: string;
let tg: TelegramStandIn;
const f = fixtures(() => ({ t, token }));

const BOT_TOKEN = '123456789:AAE-test-token-of-the-stand-in-000';
const CHAT = { owner: 9001, reseller: 9002, viewer: 9003, admin: 9004 };
const ALICE = 5000000101; // an English-speaking customer
const BAHAR = 5000000102; // a Persian-speaking customer
const STRANGER = 5000000999;
const CAROL = 5000000103; // a customer who unlinks herself
const DAVE = 5000000104; // a customer an operator unlinks

let ownerId: string;
let admin: TestUser;
let reseller: TestUser;
let otherReseller: TestUser;
let viewer: TestUser;
let alice: ClientView;
let bahar: ClientView;
let resellersOwn: ClientView;
let othersClient: ClientView;

const texts = (calls: BotApiCall[]) =>
  calls.filter((c) => c.method === 'sendMessage').map((c) => String(c.params.text));

/** Sends `text` from `from` (in their private chat unless `chatId`) and waits for the bot's first answer to it. */
async function ask(from: { id: number; language_code?: string }, text: string, chatId = from.id): Promise<string> {
  const before = tg.sentTo(chatId).length;
  tg.message(from, text, chatId);
  const answer = await waitFor(`the bot's answer to ${text}`, () => tg.sentTo(chatId)[before], 30_000);
  return String(answer.params.text);
}

beforeAll(async () => {
  tg = await startTelegramStandIn();
  t = await startTestPanel({ WARREN_TELEGRAM_API_ROOT: tg.apiRoot, WARREN_PUBLIC_URL: 'https://vpn.example.com' });
  token = await t.login();
  ownerId = (await t.query<{ id: string }>(`select id from users where username = 'owner'`))[0].id;
  [admin, reseller, otherReseller, viewer] = [
    await f.createUser('admin'),
    await f.createUser('reseller'),
    await f.createUser('reseller'),
    await f.createUser('viewer'),
  ];
  const iface = await f.createInterface();
  alice = await f.createClient({
    name: `alice-${randomUUID().slice(0, 6)}`,
    telegramId: ALICE,
    interfaceIds: [iface.id],
    deviceNames: ['phone'],
  });
  bahar = await f.createClient({
    name: `bahar-${randomUUID().slice(0, 6)}`,
    telegramId: BAHAR,
    interfaceIds: [iface.id],
    quotaBytes: 10 * 1024 ** 3,
  });
  const as = (user: TestUser, name: string) =>
    t.call('POST', 'clients', { token: user.token, body: { name, interfaceIds: [iface.id] } });
  resellersOwn = (await as(reseller, `mine-${randomUUID().slice(0, 6)}`)).body;
  othersClient = (await as(otherReseller, `theirs-${randomUUID().slice(0, 6)}`)).body;
  expect([resellersOwn.id, othersClient.id]).toEqual([expect.any(String), expect.any(String)]);

  const set = await t.call('PATCH', 'settings/telegram', {
    token,
    body: {
      enabled: true,
      token: BOT_TOKEN,
      operatorChats: [
        { chatId: CHAT.owner, userId: ownerId },
        { chatId: CHAT.reseller, userId: reseller.id },
        { chatId: CHAT.viewer, userId: viewer.id },
        { chatId: CHAT.admin, userId: admin.id },
      ],
    },
  });
  expect(set.status).toBe(200);
  await waitFor('the bot polling the stand-in', () => tg.polls > 0);
}, 120_000);

afterAll(async () => {
  await t?.stop();
  await tg?.close();
});

describe('settings', () => {
  it('shows whether a token is set, never the token', async () => {
    const got = await t.call('GET', 'settings/telegram', { token });
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ enabled: true, tokenSet: true, customerLanguage: 'en' });
    expect(got.body.operatorChats).toContainEqual({
      chatId: CHAT.reseller,
      userId: reseller.id,
      username: reseller.username,
      role: 'reseller',
    });
    expect(JSON.stringify(got.body)).not.toContain(BOT_TOKEN.split(':')[1]);
    // The audit log says the token changed, not what it is.
    const entries = await t.query<{ changes: unknown }>(
      `select changes from audit_entries where action = 'settings.telegram.update'`,
    );
    expect(JSON.stringify(entries)).not.toContain(BOT_TOKEN.split(':')[1]);
    expect(JSON.stringify(entries)).toContain('"secret":true');
  });

  it('refuses a chat for a user that does not exist, and an enabled bot without a token', async () => {
    await f.expectRefused(
      'PATCH',
      'settings/telegram',
      { operatorChats: [{ chatId: 1, userId: randomUUID() }] },
      400,
      'operatorChats[0].userId',
    );
    await f.expectRefused('PATCH', 'settings/telegram', { token: null }, 400, 'token');
    await f.expectRefused('PATCH', 'settings/telegram', { token: 'not-a-token' }, 400, 'token');
  });

  it('is the owner’s to change', async () => {
    const answer = await t.call('PATCH', 'settings/telegram', { token: admin.token, body: { sendBackups: true } });
    expect(answer.status).toBe(403);
  });
});

describe('customers', () => {
  it('/start gives a known customer their status, link, config file and QR code', async () => {
    const before = tg.sentTo(ALICE).length;
    tg.message({ id: ALICE, language_code: 'en' }, '/start');
    const calls = await waitFor(
      'the summary, the file and the QR code',
      () => {
        const sent = tg.sentTo(ALICE).slice(before);
        return sent.some((c) => c.method === 'sendPhoto') && sent;
      },
      30_000,
    );
    const [summary] = texts(calls);
    expect(summary).toContain(alice.name);
    expect(summary).toContain('Status: Active');
    expect(summary).toMatch(/Subscription link: https:\/\/vpn\.example\.com\/sub\/\S+/);
    const file = calls.find((c) => c.method === 'sendDocument')!.files.document;
    expect(file.name).toMatch(/\.conf$/);
    expect(file.bytes.toString('utf8')).toContain('[Interface]');
    const photo = calls.find((c) => c.method === 'sendPhoto')!.files.photo;
    expect(photo.bytes.subarray(0, 4)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47])); // a PNG
  });

  it('answers in Persian when the customer’s app speaks it', async () => {
    const summary = await ask({ id: BAHAR, language_code: 'fa' }, '/start');
    expect(summary).toContain(bahar.name);
    expect(summary).toContain('وضعیت: فعال');
  });

  it('tells a stranger politely that nothing is linked, and nothing more', async () => {
    const answer = await ask({ id: STRANGER, language_code: 'en' }, '/start');
    expect(answer).toContain('not linked to a subscription');
    await ask({ id: STRANGER }, '/start'); // a second answer arrived: the first was alone
    const sent = tg.sentTo(STRANGER);
    expect(sent.map((c) => c.method)).toEqual(['sendMessage', 'sendMessage']);
    for (const name of [alice.name, bahar.name, resellersOwn.name]) expect(JSON.stringify(sent)).not.toContain(name);
  });
});

describe('operators', () => {
  const expiresAt = async (id: string) =>
    (await t.query<{ expires_at: Date | null }>('select expires_at from clients where id = $1', [id]))[0].expires_at;
  const enabled = async (id: string) =>
    (await t.query<{ status: string }>('select status from clients where id = $1', [id]))[0].status !== 'disabled';

  it('an owner extends a client, recorded in the audit log as the route’s change', async () => {
    const answer = await ask({ id: CHAT.owner }, `/extend ${alice.name} 30`);
    expect(answer).toContain(alice.name);
    const stored = await expiresAt(alice.id);
    expect(Math.round((stored!.getTime() - Date.now()) / 86_400_000)).toBe(30);
    const viaApi = await f.getClient(alice.id);
    expect(new Date(viaApi.expiresAt!).getTime()).toBe(stored!.getTime());
    const [entry] = await t.query<any>(
      `select action, route, via, actor_id, outcome, changes, target_id from audit_entries where via = 'telegram' and target_id = $1`,
      [alice.id],
    );
    expect(entry).toMatchObject({
      action: 'clients.update',
      route: '/api/clients/{id}',
      actor_id: ownerId,
      outcome: 'success',
    });
    expect(entry.changes).toEqual([{ field: 'expiresAt', old: null, new: stored!.toISOString() }]);
  });

  it('an owner looks a client up and resets its traffic', async () => {
    expect(await ask({ id: CHAT.owner }, `/find ${bahar.name.slice(0, 8)}`)).toContain(bahar.name);
    expect(await ask({ id: CHAT.owner }, `/reset ${bahar.name}`)).toContain(bahar.name);
    const [entry] = await t.query<any>(`select action from audit_entries where via = 'telegram' and target_id = $1`, [
      bahar.id,
    ]);
    expect(entry.action).toBe('clients.reset');
  });

  it('a reseller changes their own clients and cannot touch another reseller’s', async () => {
    expect(await ask({ id: CHAT.reseller }, `/disable ${othersClient.name}`)).toContain('No client named');
    expect(await enabled(othersClient.id)).toBe(true);
    expect(await ask({ id: CHAT.reseller }, `/find theirs-`)).not.toContain(othersClient.name);
    expect(await ask({ id: CHAT.reseller }, `/disable ${resellersOwn.name}`)).toContain('is disabled');
    expect(await enabled(resellersOwn.id)).toBe(false);
  });

  it('a viewer reads and cannot change', async () => {
    const before = await expiresAt(alice.id);
    expect(await ask({ id: CHAT.viewer }, `/client ${alice.name}`)).toContain('Status:');
    expect(await ask({ id: CHAT.viewer }, `/extend ${alice.name} 5`)).toContain('may only read');
    expect(await ask({ id: CHAT.viewer }, `/disable ${alice.name}`)).toContain('may only read');
    expect([await expiresAt(alice.id), await enabled(alice.id)]).toEqual([before, true]);
  });

  it('POST /api/settings/notify/test reaches every operator chat but a reseller’s (the panel is not theirs)', async () => {
    const answer = await t.call('POST', 'settings/notify/test', { token });
    expect(answer.status).toBe(200);
    expect(answer.body.channels).toContainEqual({ channel: 'telegram', ok: true, error: null });
    const tested = (chat: number) => texts(tg.sentTo(chat)).some((text) => text.includes('A test notification'));
    expect([tested(CHAT.owner), tested(CHAT.admin), tested(CHAT.viewer), tested(CHAT.reseller)]).toEqual([
      true,
      true,
      true,
      false,
    ]);
  });
});

describe('deliver()', () => {
  const event = (over: Partial<NotificationEvent>): NotificationEvent => ({
    id: randomUUID(),
    kind: 'client.quota-80',
    occurredAt: new Date().toISOString(),
    subject: { type: 'client', id: othersClient.id, name: othersClient.name },
    ownerId: otherReseller.id,
    telegramId: null,
    details: { percent: 80 },
    ...over,
  });
  const reached = (id: string) =>
    Object.entries(CHAT)
      .filter(([, chat]) => texts(tg.sentTo(chat)).some((text) => text.includes(id)))
      .map(([who]) => who)
      .sort();

  it('a client’s event reaches the non-reseller chats, its own reseller’s, and the customer in their language', async () => {
    const channel = t.panel.app.get(TelegramChannel);
    const mine = event({
      subject: { type: 'client', id: bahar.id, name: `${bahar.name}#${randomUUID()}` },
      ownerId: ownerId,
      telegramId: String(BAHAR),
    });
    await channel.deliver(mine);
    expect(reached(mine.subject.name)).toEqual(['admin', 'owner', 'viewer']);
    expect(texts(tg.sentTo(BAHAR)).at(-1)).toContain('۸۰٪'); // Bahar's app spoke Persian at /start
    const resellers = event({
      subject: { type: 'client', id: resellersOwn.id, name: `${resellersOwn.name}#${randomUUID()}` },
      ownerId: reseller.id,
    });
    await channel.deliver(resellers);
    expect(reached(resellers.subject.name)).toEqual(['admin', 'owner', 'reseller', 'viewer']);
    const others = event({ subject: { type: 'client', id: othersClient.id, name: `x#${randomUUID()}` } });
    await channel.deliver(others);
    expect(reached(others.subject.name)).toEqual(['admin', 'owner', 'viewer']);
    const node = event({
      kind: 'node.offline',
      subject: { type: 'node', id: randomUUID(), name: `n#${randomUUID()}` },
      ownerId: null,
    });
    await channel.deliver(node);
    expect(reached(node.subject.name)).toEqual(['admin', 'owner', 'viewer']);
  });

  it('a delivered event is not sent twice', async () => {
    const channel = t.panel.app.get(TelegramChannel);
    const once = event({ subject: { type: 'client', id: alice.id, name: `a#${randomUUID()}` }, ownerId });
    await channel.deliver(once);
    await channel.deliver(once);
    expect(texts(tg.sentTo(CHAT.owner)).filter((text) => text.includes(once.subject.name))).toHaveLength(1);
  });
});

describe('unlinking a customer', () => {
  const clientEvent = (client: ClientView, telegramId: number): NotificationEvent => ({
    id: randomUUID(),
    kind: 'client.quota-95',
    occurredAt: new Date().toISOString(),
    subject: { type: 'client', id: client.id, name: `${client.name}#${randomUUID()}` },
    ownerId,
    telegramId: String(telegramId),
    details: { percent: 95 },
  });
  /** The reply keyboard's button texts of a call, row by row. */
  const buttons = (call: BotApiCall | undefined) =>
    ((call?.params.reply_markup as { keyboard?: { text: string }[][] } | undefined)?.keyboard ?? []).map((row) =>
      row.map((button) => button.text),
    );

  it('a customer stops with the button or /stop, is asked first, and is answered in their language', async () => {
    const carol = await f.createClient({
      name: `carol-${randomUUID().slice(0, 6)}`,
      telegramId: CAROL,
      interfaceIds: alice.interfaceIds,
    });
    const before = tg.sentTo(CAROL).length;
    tg.message({ id: CAROL, language_code: 'en' }, '/start');
    const hint = await waitFor('the way out after the summary', () =>
      tg
        .sentTo(CAROL)
        .slice(before)
        .find((c) => String(c.params.text).includes('/stop')),
    );
    expect(buttons(hint)).toEqual([['Stop notifications']]);

    // The button asks; "no" keeps everything.
    expect(await ask({ id: CAROL, language_code: 'en' }, 'Stop notifications')).toContain(
      `Unlink this Telegram account from ${carol.name}?`,
    );
    expect(buttons(tg.sentTo(CAROL).at(-1))).toEqual([['Yes, unlink', 'No, keep it']]);
    expect(await ask({ id: CAROL, language_code: 'en' }, 'No, keep it')).toContain('Nothing changed');
    expect((await f.getClient(carol.id)).telegramId).toBe(CAROL);

    // /stop in Persian, then "yes": every client of hers forgets her id, and her kept language goes.
    expect(await ask({ id: CAROL, language_code: 'fa' }, '/stop')).toContain(`از ${carol.name} جدا شود؟`);
    expect(buttons(tg.sentTo(CAROL).at(-1))).toEqual([['بله، جدا شود', 'نه، بماند']]);
    const done = await ask({ id: CAROL, language_code: 'fa' }, 'بله، جدا شود');
    expect(done).toContain('انجام شد');
    expect(done).toContain(carol.name);
    expect(tg.sentTo(CAROL).at(-1)?.params.reply_markup).toEqual({ remove_keyboard: true });
    expect((await f.getClient(carol.id)).telegramId).toBeNull();
    expect(await t.query('select 1 from telegram_users where telegram_id = $1', [CAROL])).toEqual([]);

    // An event recorded while she was linked reaches the operators, not her; /start knows her no more.
    const sent = tg.sentTo(CAROL).length;
    const late = clientEvent(carol, CAROL);
    await t.panel.app.get(TelegramChannel).deliver(late);
    expect(texts(tg.sentTo(CHAT.owner)).some((text) => text.includes(late.subject.name))).toBe(true);
    expect(tg.sentTo(CAROL)).toHaveLength(sent);
    expect(await ask({ id: CAROL, language_code: 'en' }, '/start')).toContain('not linked to a subscription');
    expect(await ask({ id: CAROL, language_code: 'en' }, '/stop')).toContain('nothing to stop');
  });

  it('an operator unlinks a customer by clearing telegramId (PATCH); the customer hears nothing more', async () => {
    const dave = await f.createClient({
      name: `dave-${randomUUID().slice(0, 6)}`,
      telegramId: DAVE,
      interfaceIds: alice.interfaceIds,
    });
    const linked = clientEvent(dave, DAVE);
    await t.panel.app.get(TelegramChannel).deliver(linked);
    expect(texts(tg.sentTo(DAVE)).some((text) => text.includes(linked.subject.name))).toBe(true);

    const cleared = await t.call('PATCH', `clients/${dave.id}`, { token, body: { telegramId: null } });
    expect([cleared.status, cleared.body.telegramId]).toEqual([200, null]);
    const sent = tg.sentTo(DAVE).length;
    await t.panel.app.get(TelegramChannel).deliver(clientEvent(dave, DAVE));
    expect(tg.sentTo(DAVE)).toHaveLength(sent);
    expect(await ask({ id: DAVE, language_code: 'en' }, '/start')).toContain('not linked to a subscription');
  });
});

describe('backups', () => {
  it('sends each new archive to the owner’s chat when asked to', async () => {
    expect((await t.call('PATCH', 'settings/telegram', { token, body: { sendBackups: true } })).status).toBe(200);
    const made = await t.call('POST', 'backups', { token });
    expect(made.status).toBe(201);
    const sent = await waitFor('the archive in the owner’s chat', () =>
      tg.sentTo(CHAT.owner).find((c) => c.method === 'sendDocument' && c.files.document?.name === made.body.name),
    );
    expect(sent.files.document.bytes.length).toBe(made.body.size);
    expect(tg.sentTo(CHAT.admin).some((c) => c.method === 'sendDocument')).toBe(false);
  });
});

describe('a Telegram outage', () => {
  afterEach(() => tg.setMode('normal'));

  it('answering 500: deliver() fails (to be retried), the panel answers, the bot resumes after', async () => {
    tg.setMode('error');
    const polls = tg.polls;
    await waitFor('the bot polling into the outage', () => tg.polls > polls);
    await expect(
      t.panel.app.get(TelegramChannel).deliver({
        id: randomUUID(),
        kind: 'node.offline',
        occurredAt: new Date().toISOString(),
        subject: { type: 'node', id: randomUUID(), name: 'n' },
        ownerId: null,
        telegramId: null,
        details: {},
      }),
    ).rejects.toThrow(/chats not reached/);
    expect((await t.call('GET', 'clients', { token })).status).toBe(200);
    tg.setMode('normal');
    expect(await ask({ id: ALICE }, '/status')).toContain(alice.name);
  }, 60_000);

  it('hanging: the panel answers while deliver() and the poll wait; the bot resumes after', async () => {
    tg.setMode('hang');
    const polls = tg.polls;
    await waitFor('a poll held by the hung stand-in', () => tg.polls > polls, 60_000);
    const pending = t.panel.app.get(TelegramChannel).deliver({
      id: randomUUID(),
      kind: 'node.offline',
      occurredAt: new Date().toISOString(),
      subject: { type: 'node', id: randomUUID(), name: 'n' },
      ownerId: null,
      telegramId: null,
      details: {},
    });
    const settled = pending.then(
      () => 'delivered',
      () => 'failed',
    );
    expect((await t.call('GET', 'clients', { token })).status).toBe(200);
    expect(
      (await t.call('PATCH', `clients/${alice.id}`, { token, body: { note: 'while Telegram hangs' } })).status,
    ).toBe(200);
    expect(await Promise.race([settled, Promise.resolve('still waiting')])).toBe('still waiting');
    tg.setMode('normal');
    expect(await settled).toBe('failed'); // the hung calls were cut: the dispatcher retries
    expect(await ask({ id: ALICE }, '/status')).toContain(alice.name);
  }, 90_000);
});

describe('two controllers', () => {
  // Runs last: it stops this file's panel's poller for good, as a controller shutting down does.
  it('only one polls; another takes over when it stops', async () => {
    const second = await startTestPanel({ WARREN_TELEGRAM_API_ROOT: tg.apiRoot }, { database: t.database });
    try {
      const first = t.panel.app.get(TelegramPoller);
      const other = second.panel.app.get(TelegramPoller);
      await other.reconcile();
      expect([first.isPolling, other.isPolling]).toEqual([true, false]);
      await first.onModuleDestroy();
      await waitFor('the second controller polling', () => other.isPolling, 60_000);
      expect(await ask({ id: ALICE }, '/status')).toContain(alice.name);
    } finally {
      await second.stop();
    }
  }, 120_000);
});
