import { fixtures } from '../support/fixtures.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';
import { refusal } from '../support/refusal.js';

let t: TestPanel;
let token: string;

beforeAll(async () => {
  t = await startTestPanel();
  token = await t.login();
});
afterAll(async () => {
  await t?.stop();
});

const { count, createToken } = fixtures(() => ({ t, token }));

describe('bad input gets a 4xx with {error, field} and changes nothing', () => {
  const cases: [string, { body?: unknown; headers?: Record<string, string> }, number, string][] = [
    ['a wrong type', { body: { name: 42 } }, 400, 'name'],
    ['a missing field', { body: {} }, 400, 'name'],
    ['an empty name', { body: { name: '' } }, 400, 'name'],
    ['an over-long name', { body: { name: 'x'.repeat(65) } }, 400, 'name'],
    ['an unknown field', { body: { name: 'ok', admin: true } }, 400, 'admin'],
    ['a field named like an inherited property', { body: { name: 'ok', valueOf: 'x' } }, 400, 'valueOf'],
    ['another one', { body: { name: 'ok', hasOwnProperty: { a: 1 } } }, 400, 'hasOwnProperty'],
    ['a JSON array', { body: [{ name: 'ok' }] }, 400, ''],
    ['JSON null', { body: 'null' }, 400, ''],
    ['a JSON string', { body: '"name"' }, 400, ''],
    ['malformed JSON', { body: '{"name": "ok"' }, 400, ''],
    ['a body over 1 MiB', { body: { name: 'x'.repeat(1024 * 1024 + 10) } }, 413, ''],
    ['a non-JSON content type', { body: '<name>ok</name>', headers: { 'content-type': 'application/xml' } }, 415, ''],
  ];

  test.each(cases)('%s', async (_, request, status, field) => {
    const before = await count('api_tokens');
    const response = await t.call('POST', 'tokens', { token, ...request });
    expect(response.status).toBe(status);
    expect(response.body).toEqual(refusal(field));
    expect(response.body.error).not.toMatch(/\bat \S+:\d+/); // no stack traces
    expect(await count('api_tokens')).toBe(before);
  });

  test('query parameters named like inherited properties are unknown, not ignored', async () => {
    for (const name of ['toString', 'valueOf', 'constructor', '__proto__', '__defineGetter__']) {
      const response = await t.call('GET', `clients?${name}=1`, { token });
      expect([name, response.status, response.body]).toEqual([
        name,
        400,
        refusal(name, `"${name}" is not a field this request takes.`),
      ]);
    }
  });

  test('a change given a body or query parameter its route does not take is refused, not done without it', async () => {
    const { id } = await createToken();
    // DELETE /api/tokens/{id} takes no query: a "dry run" asked for must not delete.
    const dryRun = await t.call('DELETE', `tokens/${id}?dryRun=true`, { token });
    expect([dryRun.status, dryRun.body]).toEqual([
      400,
      refusal('dryRun', '"dryRun" is not a field this request takes.'),
    ]);
    const withBody = await t.call('DELETE', `tokens/${id}`, { token, body: { keepSessions: true } });
    expect([withBody.status, withBody.body]).toEqual([400, refusal('keepSessions')]);
    const notObject = await t.call('DELETE', `tokens/${id}`, { token, body: '[1]' });
    expect([notObject.status, notObject.body]).toEqual([400, refusal('')]);
    expect((await t.call('GET', 'tokens', { token })).body.map((row: { id: string }) => row.id)).toContain(id);
    // None, or an empty object, is no input.
    expect((await t.call('DELETE', `tokens/${id}`, { token, body: {} })).status).toBe(200);
  });

  test('a missing field says it is required, not that its type is wrong', async () => {
    const response = await t.call('POST', 'tokens', { token, body: {} });
    expect(response).toMatchObject({ status: 400, body: refusal('name', '"name" is required.') });
    const wrongType = await t.call('POST', 'tokens', { token, body: { name: 42 } });
    expect(wrongType.body.error).toMatch(/must be text/);
  });

  test('unknown ids are 404 naming the id', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const patch = await t.call('PATCH', `tokens/${id}`, { token, body: { enabled: false } });
      expect(patch.status).toBe(404);
      expect(patch.body).toEqual(refusal('id', 'token not found'));
      const remove = await t.call('DELETE', `tokens/${id}`, { token });
      expect(remove.status).toBe(404);
    }
  });

  test('an unknown route is a 404 in the same shape', async () => {
    const response = await t.call('GET', 'no-such-thing', { token });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: 'not found', field: '' });
  });

  test('a wrong type in PATCH names the field and changes nothing', async () => {
    const issued = await createToken({ name: 'patch-me' });
    const response = await t.call('PATCH', `tokens/${issued.id}`, { token, body: { enabled: 'no' } });
    expect(response.status).toBe(400);
    expect(response.body.field).toBe('enabled');
    const [row] = await t.query<{ enabled: boolean }>('select enabled from api_tokens where id = $1', [issued.id]);
    expect(row.enabled).toBe(true);
  });
});

test('an empty name is reported as a length problem, not a character problem', async () => {
  const response = await t.call('POST', 'tokens', { token, body: { name: '' } });
  expect(response.body).toEqual(refusal('name', '"name" cannot be empty.'));
});
