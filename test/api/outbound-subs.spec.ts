import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { forbiddenReason } from '#libs/net/forbidden-targets.js';
import { answer, fixtures, signedInPanel } from '../support/fixtures.js';
import { startListServer, type ListServer } from '../support/list-server.js';
import { refusal } from '../support/refusal.js';

const session = signedInPanel();
const f = fixtures(session, {
  unchanged: async () => [await f.count('outbound_subscriptions'), await f.count('outbounds'), await f.revisions()],
});
const { typed, call, expectRefused } = f;

let list: ListServer;
beforeAll(async () => {
  list = await startListServer();
});
afterAll(async () => {
  await list.close();
});

async function allowPrivateTargets(allow: boolean): Promise<void> {
  expect((await answer(typed().PATCH('/api/settings', { body: { allowPrivateTargets: allow } }))).status).toBe(200);
}

const ss = (password: string, host: string, name: string) =>
  `ss://${Buffer.from(`aes-256-gcm:${password}`).toString('base64url')}@${host}:8388#${name}`;

async function createSub(name: string, url = list.url) {
  const created = await answer(typed().POST('/api/outbound-subs', { body: { name, url, intervalSeconds: 0 } }));
  expect({ status: created.status, body: created.body }).toMatchObject({ status: 201 });
  return created.body;
}

async function refresh(id: string) {
  const refreshed = await answer(typed().POST('/api/outbound-subs/{id}/refresh', { params: { path: { id } } }));
  expect({ status: refreshed.status, body: refreshed.body }).toMatchObject({ status: 200 });
  return refreshed.body;
}

async function hopsOf(subscriptionId: string) {
  const listed = await answer(typed().GET('/api/outbounds', { params: { query: {} } }));
  return listed.body.filter((hop) => hop.subscriptionId === subscriptionId);
}

describe('the forbidden-target rules apply to the URL', () => {
  test('a private address without allowPrivateTargets is refused on url, and nothing is written or fetched', async () => {
    await allowPrivateTargets(false);
    const before = list.requests;
    await expectRefused('POST', 'outbound-subs', { name: 'local', url: list.url }, 400, 'url', /private targets/);
    await expectRefused('POST', 'outbound-subs/preview', { url: list.url }, 400, 'url', /private targets/);
    await expectRefused('POST', 'outbound-subs', { name: 'local', url: 'http://localhost:1/x' }, 400, 'url');
    expect(list.requests).toBe(before);
  });

  test('an internal name and an unknown one are refused in the same words, on save, preview and refresh', async () => {
    // This host's own name resolves (through /etc/hosts) to a loopback or private address.
    const internal = hostname();
    const addresses = await lookup(internal, { all: true });
    expect(addresses.some(({ address }) => forbiddenReason(address) !== null)).toBe(true);
    const unknown = 'no-such-name.invalid';
    const sentence = (host: string) =>
      `${host} cannot be fetched: it does not resolve to a public address; subscriptions may not point at the panel's own or private addresses unless settings allow private targets`;
    await allowPrivateTargets(false);
    for (const host of [internal, unknown]) {
      const url = `http://${host}:18999/list`;
      const saved = await expectRefused('POST', 'outbound-subs', { name: 'probe', url }, 400, 'url');
      expect(saved.error).toBe(sentence(host));
      const previewed = await expectRefused('POST', 'outbound-subs/preview', { url }, 400, 'url');
      expect(previewed.error).toBe(sentence(host));
    }
    // Saved while private targets were allowed, fetched once they are not: the same words again.
    await allowPrivateTargets(true);
    const subs = [
      await createSub('internal', `http://${internal}:18999/list`),
      await createSub('unknown', `http://${unknown}:18999/list`),
    ];
    await allowPrivateTargets(false);
    for (const [sub, host] of [
      [subs[0], internal],
      [subs[1], unknown],
    ] as const)
      expect((await refresh(sub.id)).subscription.lastError).toBe(sentence(host));
    await allowPrivateTargets(true);
    for (const sub of subs) expect((await call('DELETE', `outbound-subs/${sub.id}`)).status).toBe(200);
  });

  test('a URL that is not http(s), or carries credentials, is refused on url', async () => {
    await expectRefused('POST', 'outbound-subs', { name: 'x', url: 'ftp://203.0.113.5/list' }, 400, 'url');
    await expectRefused('POST', 'outbound-subs', { name: 'x', url: 'https://u:p@203.0.113.5/list' }, 400, 'url');
    await expectRefused('POST', 'outbound-subs', { name: 'x', url: 'not a url' }, 400, 'url');
  });

  test('a subscription saved while allowed is not fetched once private targets are refused again', async () => {
    await allowPrivateTargets(true);
    list.body = ss('one', '203.0.113.31', 'forbidden-later');
    const sub = await createSub('forbidden-later');
    await allowPrivateTargets(false);
    const before = list.requests;
    const outcome = await refresh(sub.id);
    expect(outcome.subscription.lastError).toMatch(/forbidden address.*private targets/);
    expect(list.requests).toBe(before);
    expect(await hopsOf(sub.id)).toEqual([]);
    await allowPrivateTargets(true);
    expect((await call('DELETE', `outbound-subs/${sub.id}`)).status).toBe(200);
  });
});

describe('what a viewer reads', () => {
  test("a viewer gets each URL cut to its origin (the provider's token stays with managers)", async () => {
    await allowPrivateTargets(true);
    const secret = `${list.url}?token=provider-secret`;
    const sub = await createSub('viewer-url', secret);
    const viewer = await f.createUser('viewer');
    const admin = await f.createUser('admin');
    const asViewer = await session().t.call('GET', 'outbound-subs', { token: viewer.token });
    expect(asViewer.status).toBe(200);
    const seen = (asViewer.body as { id: string; url: string }[]).find((row) => row.id === sub.id);
    expect(seen?.url).toBe(`${new URL(secret).origin}/…`);
    expect(JSON.stringify(asViewer.body)).not.toContain('provider-secret');
    const asAdmin = await session().t.call('GET', 'outbound-subs', { token: admin.token });
    expect((asAdmin.body as { id: string; url: string }[]).find((row) => row.id === sub.id)?.url).toBe(secret);
    expect((await call('DELETE', `outbound-subs/${sub.id}`)).status).toBe(200);
  });
});

describe('preview, refresh, order, delete (against a local HTTP server)', () => {
  beforeAll(async () => {
    await allowPrivateTargets(true);
  });

  test('preview reads a base64 list without saving: hops in order, the lines it skips with why', async () => {
    list.body = Buffer.from(
      [
        '# provider list',
        ss('pw-a', '203.0.113.11', 'alpha'),
        'socks5://bob:secret@203.0.113.12:1080#beta',
        'vmess://whatever',
        'http://203.0.113.13:3128#gamma',
        'socks5://bob:other@203.0.113.12:1080#beta-again',
        '',
      ].join('\n'),
    ).toString('base64');
    const before = [await f.count('outbound_subscriptions'), await f.count('outbounds')];
    const preview = await answer(typed().POST('/api/outbound-subs/preview', { body: { url: list.url } }));
    expect(preview.status).toBe(200);
    expect(preview.body.hops).toEqual([
      {
        line: 2,
        tag: 'alpha',
        kind: 'shadowsocks',
        address: '203.0.113.11:8388',
        username: null,
        hasPassword: true,
        method: 'aes-256-gcm',
      },
      {
        line: 3,
        tag: 'beta',
        kind: 'socks',
        address: '203.0.113.12:1080',
        username: 'bob',
        hasPassword: true,
        method: null,
      },
      {
        line: 5,
        tag: 'gamma',
        kind: 'http',
        address: '203.0.113.13:3128',
        username: null,
        hasPassword: false,
        method: null,
      },
    ]);
    expect(preview.body.skipped).toEqual([
      expect.stringMatching(/^line 4: vmess:\/\/ links are not supported/),
      'line 6: the same hop as line 3',
    ]);
    expect([await f.count('outbound_subscriptions'), await f.count('outbounds')]).toEqual(before);
    // Nothing to read there: a 400 on url saying why.
    list.status = 404;
    await expectRefused('POST', 'outbound-subs/preview', { url: list.url }, 400, 'url', /answered 404/);
    list.status = 200;
  });

  test('a refresh makes the hops, marked as from it; the next updates them in place, never twice', async () => {
    list.body = [ss('pw-a', '203.0.113.21', 'r-alpha'), 'socks5://bob:secret@203.0.113.22:1080#r-beta'].join('\n');
    const sub = await createSub('refreshing');
    expect(sub).toMatchObject({ count: 0, lastFetchedAt: null, lastError: null, intervalSeconds: 0 });
    const revisionsBefore = await f.revisions();
    const first = await refresh(sub.id);
    expect(first).toMatchObject({ added: 2, updated: 0, removed: 0, kept: 0 });
    expect(first.subscription).toMatchObject({ count: 2, lastError: null, skipped: [] });
    expect(first.subscription.lastFetchedAt).not.toBeNull();
    expect(await f.revisions()).not.toEqual(revisionsBefore);
    const hops = await hopsOf(sub.id);
    expect(hops.map((hop) => [hop.tag, hop.kind, hop.address, hop.subscriptionGone])).toEqual([
      ['r-alpha', 'shadowsocks', '203.0.113.21:8388', false],
      ['r-beta', 'socks', '203.0.113.22:1080', false],
    ]);

    // The same list again: nothing changes (not even the node's revision).
    const steady = await f.revisions();
    expect(await refresh(sub.id)).toMatchObject({ added: 0, updated: 0, removed: 0, kept: 0 });
    expect(await f.revisions()).toEqual(steady);

    // A new password and name for the same server and user: the same hop, changed in place.
    list.body = [ss('pw-new', '203.0.113.21', 'renamed'), 'socks5://bob:secret@203.0.113.22:1080#r-beta'].join('\n');
    expect(await refresh(sub.id)).toMatchObject({ added: 0, updated: 1, removed: 0 });
    const after = await hopsOf(sub.id);
    expect(after.map((hop) => hop.id)).toEqual(hops.map((hop) => hop.id));
    const [password] = await session().t.query('select password from outbounds where id = $1', [hops[0].id]);
    expect(password).toEqual({ password: 'pw-new' });
    // Two refreshes at once still make each hop once.
    list.body += '\nhttp://203.0.113.23:3128#r-gamma';
    const both = await Promise.all([refresh(sub.id), refresh(sub.id)]);
    expect(both.map((outcome) => outcome.added).sort()).toEqual([0, 1]);
    expect(await hopsOf(sub.id)).toHaveLength(3);
  });

  test('a hop gone from the list is deleted, unless a rule uses it: then kept and flagged until it returns', async () => {
    const kept = 'socks5://203.0.113.32:1080#g-kept';
    list.body = ['http://203.0.113.31:3128#g-gone', kept].join('\n');
    const sub = await createSub('going');
    await refresh(sub.id);
    const rule = await call('POST', 'routing/rules', {
      name: 'via-kept',
      domains: ['example.org'],
      outboundTag: 'g-kept',
    });
    expect(rule.status).toBe(201);
    list.body = '';
    expect(await refresh(sub.id)).toMatchObject({ removed: 1, kept: 1, subscription: { count: 1, kept: 1 } });
    expect((await hopsOf(sub.id)).map((hop) => [hop.tag, hop.subscriptionGone])).toEqual([['g-kept', true]]);
    list.body = kept;
    expect(await refresh(sub.id)).toMatchObject({ added: 0, removed: 0, kept: 0 });
    expect((await hopsOf(sub.id)).map((hop) => [hop.tag, hop.subscriptionGone])).toEqual([['g-kept', false]]);

    // Deleting the subscription deletes its hops, except the one the rule uses (an ordinary hop now).
    list.body = [kept, 'http://203.0.113.33:3128#g-other'].join('\n');
    await refresh(sub.id);
    const keptId = (await hopsOf(sub.id)).find((hop) => hop.tag === 'g-kept')!.id;
    expect((await call('DELETE', `outbound-subs/${sub.id}`)).body).toEqual({ id: sub.id, deleted: true });
    const remaining = await answer(typed().GET('/api/outbounds', { params: { query: {} } }));
    expect(remaining.body.filter((hop) => hop.tag.startsWith('g-')).map((hop) => [hop.id, hop.subscriptionId])).toEqual(
      [[keptId, null]],
    );
  });

  test('a listed tag another hop has already takes a suffix', async () => {
    expect(
      (await call('POST', 'outbounds', { tag: 'taken', kind: 'socks', address: '203.0.113.40:1080' })).status,
    ).toBe(201);
    list.body = 'socks5://203.0.113.41:1080#taken';
    const sub = await createSub('suffix');
    await refresh(sub.id);
    expect((await hopsOf(sub.id)).map((hop) => hop.tag)).toEqual(['taken-2']);
  });

  test("a listed tag a balancer has takes a suffix: a list cannot capture the balancer's rules", async () => {
    const hop = await call('POST', 'outbounds', { tag: 'pool-hop', kind: 'socks', address: '203.0.113.42:1080' });
    expect(hop.status).toBe(201);
    const balancer = await call('POST', 'balancers', { tag: 'pool', strategy: 'failover', hops: [hop.body.id] });
    expect(balancer.status).toBe(201);
    list.body = 'socks5://203.0.113.43:1080#pool';
    const sub = await createSub('balancer-tag');
    await refresh(sub.id);
    expect((await hopsOf(sub.id)).map((listed) => listed.tag)).toEqual(['pool-2']);
  });

  test('a failed fetch is stored on the subscription and leaves its hops as they were', async () => {
    list.body = 'http://203.0.113.51:3128#f-one';
    const sub = await createSub('failing');
    await refresh(sub.id);
    list.status = 500;
    expect((await refresh(sub.id)).subscription).toMatchObject({ lastError: 'the server answered 500', count: 1 });
    list.status = 302;
    expect((await refresh(sub.id)).subscription.lastError).toMatch(/answered 302 \(redirects are not followed/);
    list.status = 200;
    list.body = `# ${'x'.repeat(1024 * 1024)}`;
    expect((await refresh(sub.id)).subscription).toMatchObject({
      lastError: expect.stringMatching(/larger than 1048576 bytes/),
      count: 1,
    });
    list.body = 'http://203.0.113.51:3128#f-one';
    expect((await refresh(sub.id)).subscription).toMatchObject({ lastError: null, count: 1 });
  });

  test('refresh all refreshes every enabled subscription; order lists every one once', async () => {
    list.body = 'http://203.0.113.61:3128#all-one';
    const disabled = await createSub('disabled-one');
    expect((await call('PATCH', `outbound-subs/${disabled.id}`, { enabled: false })).status).toBe(200);
    const all = await answer(typed().POST('/api/outbound-subs/refresh'));
    expect(all.status).toBe(200);
    expect(all.body.map((outcome) => outcome.subscription.id)).not.toContain(disabled.id);
    expect(all.body.every((outcome) => outcome.subscription.lastFetchedAt !== null)).toBe(true);

    const listed = (await answer(typed().GET('/api/outbound-subs'))).body;
    const reversed = listed.map((sub) => sub.id).reverse();
    const ordered = await answer(typed().POST('/api/outbound-subs/order', { body: { ids: reversed } }));
    expect(ordered.body.map((sub) => sub.id)).toEqual(reversed);
    await expectRefused('POST', 'outbound-subs/order', { ids: reversed.slice(1) }, 400, 'ids', /every subscription/);
    await expectRefused('POST', 'outbound-subs/order', { ids: [reversed[0], reversed[0]] }, 400, 'ids');
    // An id naming no subscription is a 404, as in every order route (hosts/reorder included).
    const unknown = crypto.randomUUID();
    await expectRefused(
      'POST',
      'outbound-subs/order',
      { ids: [...reversed.slice(1), unknown] },
      404,
      'ids',
      new RegExp(`subscription ${unknown} not found`),
    );
    expect((await answer(typed().GET('/api/outbound-subs'))).body.map((sub) => sub.id)).toEqual(reversed);
  });

  test('bad changes are refused by field', async () => {
    const sub = await createSub('changes');
    await expectRefused('PATCH', `outbound-subs/${sub.id}`, { intervalSeconds: 10 }, 400, 'intervalSeconds');
    await expectRefused('PATCH', `outbound-subs/${sub.id}`, { nodeId: crypto.randomUUID() }, 400, 'nodeId');
    await expectRefused('POST', 'outbound-subs', { name: 'changes', url: list.url }, 409, 'name');
    await expectRefused('PATCH', `outbound-subs/${sub.id}`, { url: 'gopher://x' }, 400, 'url');
    const changed = await call('PATCH', `outbound-subs/${sub.id}`, { name: 'changed', intervalSeconds: 600 });
    expect(changed.body).toMatchObject({ name: 'changed', intervalSeconds: 600 });
    expect((await call('POST', `outbound-subs/${crypto.randomUUID()}/refresh`)).body).toEqual(refusal('id'));
  });
});
