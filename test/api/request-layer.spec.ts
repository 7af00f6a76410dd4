import { fixtures } from '../support/fixtures.js';
import { rawRequest } from '../support/raw-http.js';
import { OWNER, startTestPanel, type TestPanel } from '../support/test-panel.js';
import { refusal } from '../support/refusal.js';

/**
 * The request layer (apps/controller/src/http/request-layer.ts): checks every route gets before
 * routing, guards and DTOs, so they hold for routes that do not exist yet. Each refusal is the
 * one `{error, field}` answer, and nothing is written.
 */

let t: TestPanel;
let token: string;
let interfaceIds: string[];

beforeAll(async () => {
  t = await startTestPanel();
  token = await t.login();
  interfaceIds = [(await createInterface()).id];
});
afterAll(async () => {
  await t?.stop();
});

const { count, createClient, createInterface } = fixtures(() => ({ t, token }));

const UNSTORABLE = 'text may not contain NUL characters or unpaired surrogates';

/** `levels` arrays nested in one another, as JSON text. */
const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

describe('JSON nesting is limited to 64 levels', () => {
  test.each([
    ['signing in (public)', 'auth/login', (deep: string) => `{"username": ${deep}, "password": "x"}`],
    ['agent enrolment (public)', 'agent/enrol', (deep: string) => `{"secret": ${deep}}`],
  ])('2,000 levels in a field, %s: a 400, not a stack overflow', async (_, path, body) => {
    const response = await t.call('POST', path, { body: body(nested(2000)) });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'JSON nested deeper than 64 levels', field: '' });
  });

  test('65 levels are refused before parsing; 64 reach the DTO, which names the field', async () => {
    const tooDeep = await t.call('POST', 'auth/login', { body: `{"username": ${nested(64)}, "password": "x"}` });
    expect(tooDeep.body).toEqual({ error: 'JSON nested deeper than 64 levels', field: '' });
    const deepest = await t.call('POST', 'auth/login', { body: `{"username": ${nested(63)}, "password": "x"}` });
    expect(deepest.status).toBe(400);
    expect(deepest.body.field).toBe('username');
  });

  test('brackets and escaped quotes inside strings are text, not nesting', async () => {
    const note = `${'['.repeat(200)}\\"{${'{'.repeat(200)}`;
    const before = await count('clients');
    const response = await t.call('POST', 'clients', {
      token,
      body: `{"name": "brackets-in-text", "interfaceIds": ${JSON.stringify(interfaceIds)}, "note": "${note}"}`,
    });
    expect(response.status).toBe(201);
    expect(response.body.note).toBe(note.replace('\\"', '"'));
    expect(await count('clients')).toBe(before + 1);
  });
});

describe('NUL and unpaired surrogates are a 400 naming the field', () => {
  test('in a query string: ?search=a%00b, an encoded lone surrogate, a bad escape', async () => {
    for (const query of ['search=a%00b', 'search=%ED%A0%80', 'search=%F0%9F', 'perPage=5&search=a%zzb']) {
      const response = await t.call('GET', `clients?${query}`, { token });
      expect({ query, status: response.status, field: response.body.field }).toEqual({
        query,
        status: 400,
        field: 'search',
      });
    }
    const emoji = await t.call('GET', `clients?search=${encodeURIComponent('🙂')}`, { token });
    expect(emoji.status).toBe(200);
  });

  test('in a query parameter name, which cannot be named', async () => {
    const response = await t.call('GET', 'clients?se%00arch=x', { token });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: UNSTORABLE, field: '' });
  });

  test('in a path: the parameter is named; outside any parameter the field is ""', async () => {
    const inParameter = await t.call('GET', 'clients/a%00b', { token });
    expect(inParameter.status).toBe(400);
    expect(inParameter.body).toEqual(refusal('id', UNSTORABLE));
    const unknownRoute = await t.call('GET', 'no%00such', { token });
    expect(unknownRoute.status).toBe(400);
    expect(unknownRoute.body).toEqual({ error: UNSTORABLE, field: '' });
  });

  test('in a login username (public): a 400, not a database error', async () => {
    const response = await t.call('POST', 'auth/login', {
      body: { username: 'own\u0000er', password: OWNER.password },
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual(refusal('username', UNSTORABLE));
  });

  test('in a body, at any depth, named by its path; nothing is written', async () => {
    const client = await createClient({ note: 'kept', interfaceIds });
    const before = await count('clients');
    const cases: [unknown, string][] = [
      [{ name: 'nul-note', note: 'a\u0000b' }, 'note'],
      [{ name: 'lone-high', note: 'a\ud800b' }, 'note'],
      [{ name: 'lone-low', note: '\udc00' }, 'note'],
      [{ name: 'nested', deviceNames: ['ok', 'b\u0000'] }, 'deviceNames.1'],
    ];
    for (const [body, field] of cases) {
      const response = await t.call('POST', 'clients', { token, body: { ...(body as object), interfaceIds } });
      expect({ field, answer: response.body, status: response.status }).toEqual({
        field,
        answer: refusal(field, UNSTORABLE),
        status: 400,
      });
    }
    const patched = await t.call('PATCH', `clients/${client.id}`, { token, body: { note: 'x\u0000' } });
    expect(patched.body).toEqual(refusal('note', UNSTORABLE));
    expect(await count('clients')).toBe(before);
    const [row] = await t.query<{ note: string }>('select note from clients where id = $1', [client.id]);
    expect(row.note).toBe('kept');
  });

  test('in a key: the object holding it is named', async () => {
    const response = await t.call('POST', 'clients', {
      token,
      body: `{"name": "bad-key", "interfaceIds": ${JSON.stringify(interfaceIds)}, "no\\u0000te": "x"}`,
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: UNSTORABLE, field: '' });
  });

  test('a surrogate pair (an emoji) is text like any other', async () => {
    const client = await createClient({ note: 'smile 🙂', interfaceIds });
    expect(client.note).toBe('smile 🙂');
  });
});

describe('bodies are JSON only: any other content type is a 415', () => {
  test.each([
    ['a form', 'application/x-www-form-urlencoded', 'name=from-a-form'],
    ['plain text', 'text/plain', '{"name": "as-text"}'],
    [
      'multipart',
      'multipart/form-data; boundary=x',
      '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nmultipart\r\n--x--\r\n',
    ],
  ])('%s', async (_, contentType, body) => {
    const before = await count('api_tokens');
    const response = await t.call('POST', 'tokens', { token, body, headers: { 'content-type': contentType } });
    expect(response.status).toBe(415);
    expect(response.body).toEqual({ error: 'unsupported content type; send application/json', field: '' });
    expect(await count('api_tokens')).toBe(before);
  });

  test('a form sign-in (public) is a 415 too', async () => {
    const response = await t.call('POST', 'auth/login', {
      body: `username=${OWNER.username}&password=${OWNER.password}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(response.status).toBe(415);
  });

  test('application/json with a charset is JSON', async () => {
    const response = await t.call('POST', 'auth/login', {
      body: OWNER,
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(response.status).toBe(200);
  });

  test('JSON declared in another charset than UTF-8 is a 415, nothing stored', async () => {
    const before = await count('api_tokens');
    const response = await t.call('POST', 'tokens', {
      token,
      body: '{"name":"sixteen"}',
      headers: { 'content-type': 'application/json; charset=utf-16' },
    });
    expect(response).toMatchObject({ status: 415, body: { error: 'JSON bodies must be UTF-8', field: '' } });
    expect(await count('api_tokens')).toBe(before);
  });

  test('a JSON content type with nothing sent is no body (a DELETE from a client that always sets it)', async () => {
    const issued = await t.call('POST', 'tokens', { token, body: { name: 'bodyless-delete' } });
    const removed = await t.call('DELETE', `tokens/${issued.body.id}`, {
      token,
      headers: { 'content-type': 'application/json' },
    });
    expect(removed.status).toBe(200);
  });
});

describe("the router's own refusals answer {error, field}, never echoing the URL", () => {
  const expectNoEcho = (text: string, marker: string) => expect(text).not.toContain(marker);

  test('a malformed percent-escape in the path', async () => {
    const response = await rawRequest(`${t.api}/clients/zz-marker%zz`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'malformed URL', field: '' });
    expectNoEcho(response.text, 'zz-marker');
  });

  test('a path parameter over the router limit', async () => {
    const response = await rawRequest(`${t.api}/clients/${'long-marker'.repeat(30)}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'path parameter too long', field: '' });
    expectNoEcho(response.text, 'long-marker');
  });

  test('a method no router knows (refused by the HTTP parser)', async () => {
    const response = await rawRequest(`${t.api}/health`, { method: 'FOO' });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'malformed HTTP request', field: '' });
  });

  test('an HTTP/1.1 request without Host', async () => {
    const response = await rawRequest(`${t.api}/health`, { omitHost: true });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'the Host header is required', field: '' });
  });

  test('a method the HTTP parser knows and the panel does not serve', async () => {
    const response = await rawRequest(`${t.api}/clients?marker=method-marker`, {
      method: 'PROPFIND',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: 'not found', field: '' });
    expectNoEcho(response.text, 'method-marker');
  });
});

describe('media types', () => {
  test("the upload route's 415 names application/gzip; every other route's names application/json", async () => {
    for (const type of ['text/plain', 'multipart/form-data; boundary=x', 'application/x-tar']) {
      const refused = await t.call('POST', 'backups/upload', {
        token,
        body: 'not an archive',
        headers: { 'content-type': type },
      });
      expect([type, refused.status, refused.body]).toEqual([
        type,
        415,
        refusal('archive', 'send the archive as the body, as application/gzip'),
      ]);
    }
    const gzipElsewhere = await t.call('POST', 'clients', {
      token,
      body: 'x',
      headers: { 'content-type': 'application/gzip' },
    });
    expect([gzipElsewhere.status, gzipElsewhere.body.error]).toEqual([
      415,
      'unsupported content type; send application/json',
    ]);
  });
});

describe('content sniffing', () => {
  const NOSNIFF = 'nosniff';

  test('every answer is nosniff: data, errors, 404s, public routes, refusals before routing', async () => {
    const answers: [string, number, string | null][] = [];
    const note = (what: string, status: number, header: string | string[] | null | undefined) =>
      answers.push([what, status, Array.isArray(header) ? header.join(',') : (header ?? null)]);
    for (const [path, method, withToken] of [
      ['template', 'GET', true],
      ['clients/not-an-id', 'GET', true],
      ['no-such-route', 'GET', true],
      ['template', 'GET', false],
      ['health', 'GET', false],
      ['auth/login', 'POST', false],
      ['agent/enrol', 'POST', false],
    ] as const) {
      const answer = await t.call(method, path, {
        token: withToken ? token : undefined,
        body: method === 'POST' ? {} : undefined,
      });
      note(`${method} ${path}`, answer.status, answer.headers.get('x-content-type-options'));
    }
    const badEscape = await rawRequest(`${t.api}/clients/a%zz`, { headers: { authorization: `Bearer ${token}` } });
    note('bad escape', badEscape.status, badEscape.headers['x-content-type-options']);
    const unknownMethod = await rawRequest(`${t.api}/health`, { method: 'FOO' });
    note('unknown method', unknownMethod.status, unknownMethod.headers['x-content-type-options']);
    const noHost = await rawRequest(`${t.api}/health`, { omitHost: true });
    note('no Host', noHost.status, noHost.headers['x-content-type-options']);
    expect(answers.filter(([, , header]) => header !== NOSNIFF)).toEqual([]);
    // The statuses prove each kind of answer was reached.
    expect(answers.map(([what, status]) => `${what} ${status}`)).toEqual([
      'GET template 200',
      'GET clients/not-an-id 404',
      'GET no-such-route 404',
      'GET template 401',
      'GET health 200',
      'POST auth/login 400',
      'POST agent/enrol 400',
      'bad escape 400',
      'unknown method 400',
      'no Host 400',
    ]);
  });
});

describe('caching', () => {
  test('every API answer is no-store (secrets, errors, 404s); the web app keeps its own caching', async () => {
    for (const [path, status] of [
      ['template', 200],
      ['settings', 200],
      ['outbounds', 200],
      ['no-such-route', 404],
      ['clients/not-an-id', 404],
    ] as const) {
      const answer = await t.call('GET', path, { token });
      expect([path, answer.status, answer.headers.get('cache-control')]).toEqual([path, status, 'no-store']);
    }
    const refused = await t.call('PATCH', 'settings', { token, body: { backupKeep: 0 } });
    expect([refused.status, refused.headers.get('cache-control')]).toEqual([400, 'no-store']);
    const signedOut = await t.call('GET', 'template');
    expect([signedOut.status, signedOut.headers.get('cache-control')]).toEqual([401, 'no-store']);
    // The web app (served when dist/web is built): its page is revalidated, its hashed assets immutable.
    const page = await fetch(`${t.panel.origin}/sign-in`);
    if (page.headers.get('content-type')?.startsWith('text/html')) {
      expect(page.headers.get('cache-control')).toBe('no-cache');
      const asset = /(assets\/[^"]+\.js)"/.exec(await page.text())?.[1];
      expect(asset).toBeDefined();
      expect((await fetch(`${t.panel.origin}/${asset}`)).headers.get('cache-control')).toBe(
        'public, max-age=31536000, immutable',
      );
    } else {
      await page.arrayBuffer();
    }
  });
});
