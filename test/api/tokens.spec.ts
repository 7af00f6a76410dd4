import { fixtures } from '../support/fixtures.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';

let t: TestPanel;
let session: string;

beforeAll(async () => {
  t = await startTestPanel();
  session = await t.login();
});
afterAll(async () => {
  await t?.stop();
});

const { createToken } = fixtures(() => ({ t, token: session }));

describe('API tokens', () => {
  test('issued once with prefix and checksum, stored only as SHA-256, listed without the secret', async () => {
    const issued = await createToken({ name: 'deploy' }); // createToken expects 201
    expect(issued.token).toMatch(/^wrn_[0-9A-Za-z]{46}$/);
    expect(issued).toMatchObject({ name: 'deploy', enabled: true, lastUsedAt: null, hint: issued.token.slice(0, 10) });

    const [row] = await t.query<{ secret_hash: string }>('select secret_hash from api_tokens where id = $1', [
      issued.id,
    ]);
    const { createHash } = await import('node:crypto');
    expect(row.secret_hash).toBe(createHash('sha256').update(issued.token).digest('hex'));
    const everything = JSON.stringify(await t.query('select * from api_tokens'));
    expect(everything).not.toContain(issued.token);

    const list = await t.call('GET', 'tokens', { token: session });
    expect(list.status).toBe(200);
    const listed = list.body.find((entry: { id: string }) => entry.id === issued.id);
    expect(listed).toMatchObject({ name: 'deploy', hint: issued.hint, owner: 'owner' });
    expect(JSON.stringify(list.body)).not.toContain(issued.token);
    expect(listed.secretHash).toBeUndefined();
  });

  test('authenticates as Bearer and records lastUsedAt', async () => {
    // Through the typed client (libs/api-client): paths, bodies and answers are checked by tsc.
    const owner = t.client(session);
    const issued = await createToken({ name: 'usage' }); // expects 201
    const me = await t.client(issued.token).GET('/api/auth/me');
    expect(me.response.status).toBe(200);
    expect(me.data!.via).toBe('token');
    const list = await owner.GET('/api/tokens');
    const listed = list.data!.find((entry) => entry.id === issued.id)!;
    expect(new Date(listed.lastUsedAt!).getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  test('disabling takes effect on the very next request; enabling restores it', async () => {
    const issued = await createToken({ name: 'toggle' });
    expect((await t.call('GET', 'tokens', { token: issued.token })).status).toBe(200);
    const disabled = await t.call('PATCH', `tokens/${issued.id}`, { token: session, body: { enabled: false } });
    expect(disabled.body.enabled).toBe(false);
    expect((await t.call('GET', 'tokens', { token: issued.token })).status).toBe(401);
    await t.call('PATCH', `tokens/${issued.id}`, { token: session, body: { enabled: true, name: 'toggled' } });
    const back = await t.call('GET', 'tokens', { token: issued.token });
    expect(back.status).toBe(200);
    expect(back.body.find((entry: { id: string }) => entry.id === issued.id).name).toBe('toggled');
  });

  test('null for a field a token always has is a 400 naming it, and the token stays as it was', async () => {
    const issued = await createToken({ name: 'kept' });
    for (const field of ['enabled', 'name']) {
      const refused = await t.call('PATCH', `tokens/${issued.id}`, { token: session, body: { [field]: null } });
      expect([refused.status, refused.body.field]).toEqual([400, field]);
    }
    const listed = await t.call('GET', 'tokens', { token: session });
    expect(listed.body.find((entry: { id: string }) => entry.id === issued.id)).toMatchObject({
      name: 'kept',
      enabled: true,
    });
  });

  test('deleting takes effect on the very next request', async () => {
    const issued = await createToken({ name: 'gone' });
    expect((await t.call('GET', 'auth/me', { token: issued.token })).status).toBe(200);
    const removed = await t.call('DELETE', `tokens/${issued.id}`, { token: session });
    expect(removed.body).toEqual({ id: issued.id, deleted: true });
    expect((await t.call('GET', 'auth/me', { token: issued.token })).status).toBe(401);
    expect((await t.call('DELETE', `tokens/${issued.id}`, { token: session })).status).toBe(404);
  });

  test('a token with a broken checksum is refused without being looked up', async () => {
    const issued = await createToken({ name: 'typo' });
    const typo = issued.token.slice(0, -1) + (issued.token.endsWith('A') ? 'B' : 'A');
    expect((await t.call('GET', 'auth/me', { token: typo })).status).toBe(401);
  });
});
