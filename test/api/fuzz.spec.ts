import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { openDatabaseFingerprint, type DatabaseFingerprint } from '../support/database-fingerprint.js';
import { jobEnded } from '../support/bulk-job.js';
import { fixtures } from '../support/fixtures.js';
import { concretePath, readEndpoints, resourceOf, routeKey, type Endpoint } from '../support/route-catalogue.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';
import { testSeed } from '../support/seeded-random.js';
import { isRefusal } from '../support/refusal.js';

/**
 * Property-based fuzzing of every route in the route table (read from the running panel, so a new
 * route is fuzzed the day it appears): hostile bodies (the route's example with fields replaced,
 * unknown fields, whole bodies of the wrong type, malformed JSON, other content types), hostile
 * query strings and hostile path ids. Whatever comes in, the panel answers below 500, a refusal
 * is exactly `{error, field}`, and a refused request leaves every row as it was.
 *
 * FUZZ_RUNS sets the requests per route and input kind (default 40); FUZZ_SEED replays a run
 * (the seed is printed at the start; fast-check prints it with the shrunk counterexample of a failure).
 */

const RUNS = Number(process.env.FUZZ_RUNS ?? 40);
/** One seed for every route's run, printed at the start (test/support/seeded-random.ts). */
const SEED = testSeed('FUZZ_SEED', 'fuzz');

/** What changes on its own or by design while requests are refused (see databaseFingerprint). */
const VOLATILE = [
  'system_samples',
  'login_throttles',
  'api_tokens.last_used_at',
  'node_agents.last_seen_at',
  'nodes.delivered_revision',
  'nodes.applied_revision',
  // Written in the background: delivery attempts to the fuzzed webhook (retried with backoff),
  // the events a test send records, and sign-ins from a new address.
  'webhook_deliveries',
  'notification_events',
];

/**
 * `levels` of alternating arrays and objects around a number, as JSON.stringify writes it; shown
 * by fast-check as `nested(levels)` (its own printer would overflow the stack on it).
 */
function nested(levels: number): unknown {
  const build = () => {
    let value: unknown = 1;
    for (let i = 0; i < levels; i++) value = i % 2 ? [value] : { a: value };
    return value;
  };
  return { toJSON: build, [fc.toStringMethod]: () => `nested(${levels})` };
}

/** Strings for anywhere (a URL too: the longest stays below Node's 16 KiB header limit). */
const shortStrings = fc.oneof(
  fc.string({ maxLength: 24 }),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.string({ maxLength: 12 }).map((s) => `${s}\u0000${s}`),
  fc.constantFrom(
    '\u0000',
    '\ud800',
    'a\udfffb',
    '\u202e',
    '🙂🙂🙂',
    '%00',
    '%zz',
    '..',
    '../../etc/passwd',
    '__proto__',
    'constructor',
  ),
  fc.constantFrom(
    '',
    ' ',
    "'; drop table clients; --",
    '<script>alert(1)</script>',
    '${7*7}',
    '-1',
    '1e999',
    'NaN',
    'true',
    'null',
  ),
  fc.constant('x'.repeat(4000)),
);
/** Strings for bodies: also far beyond any field's bound. */
const strings = fc.oneof(shortStrings, fc.constant('x'.repeat(70_000)));
const numbers = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(
    1e308,
    -1e308,
    -1,
    0,
    -0.5,
    1.5,
    2 ** 31,
    2 ** 32,
    2 ** 53,
    -(2 ** 53),
    2 ** 63,
    2 ** 64,
    65_536,
    99_999_999_999,
  ),
);
const hostile: fc.Arbitrary<unknown> = fc.oneof(
  strings,
  numbers,
  fc.constantFrom(null, true, false, [], {}),
  fc.integer({ min: 65, max: 2500 }).map(nested),
  fc.jsonValue({ maxDepth: 3 }),
  fc.array(strings, { maxLength: 3 }),
  fc.constant(JSON.parse('{"__proto__": {"polluted": 1}, "constructor": {"prototype": {"polluted": 1}}}')),
);

/** A request body: JSON (the example mutated, or anything) or raw text with its content type. */
type BodyInput = { kind: string; json: unknown } | { kind: string; text: string; contentType: string };

function bodies(example: unknown): fc.Arbitrary<BodyInput> {
  const keys = example && typeof example === 'object' && !Array.isArray(example) ? Object.keys(example) : [];
  const mutated =
    keys.length === 0
      ? []
      : [
          fc
            .tuple(
              fc.subarray(keys, { minLength: 1, maxLength: Math.min(2, keys.length) }),
              fc.array(hostile, { minLength: 2, maxLength: 2 }),
            )
            .map(([replaced, values]) => ({
              kind: 'example with fields replaced',
              json: { ...(example as object), ...Object.fromEntries(replaced.map((key, i) => [key, values[i]])) },
            })),
          fc.tuple(fc.string({ minLength: 1, maxLength: 12 }), hostile).map(([key, value]) => ({
            kind: 'example with an unknown field',
            json: { ...(example as object), [key]: value },
          })),
        ];
  return fc.oneof(
    ...mutated,
    hostile.map((json) => ({ kind: 'a whole hostile body', json })),
    fc
      .constantFrom(
        '{"a":',
        '{"a":1}garbage',
        '\u0000',
        '[',
        '"unterminated',
        '{"a":1,"a":2}',
        'nul',
        `[${'1,'.repeat(200_000)}1]`,
        '{}'.padStart(5000, ' '),
      )
      .map((text) => ({ kind: 'malformed or odd JSON text', text, contentType: 'application/json' })),
    fc
      .constantFrom(
        { text: 'name=x&enabled=true', contentType: 'application/x-www-form-urlencoded' },
        { text: JSON.stringify(example ?? {}), contentType: 'text/plain' },
        {
          text: '--b\r\nContent-Disposition: form-data; name="name"\r\n\r\nx\r\n--b--',
          contentType: 'multipart/form-data; boundary=b',
        },
        { text: JSON.stringify(example ?? {}), contentType: 'application/json; charset=utf-16' },
      )
      .map((raw) => ({ kind: 'another content type', ...raw })),
  );
}

/** URL-encodes any string, lone surrogates too (as their WTF-8 bytes, which are not UTF-8). */
function encodeAny(value: string): string {
  let out = '';
  for (const char of value) {
    const code = char.codePointAt(0)!;
    out +=
      code >= 0xd800 && code <= 0xdfff
        ? [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
            .map((b) => `%${b.toString(16).toUpperCase()}`)
            .join('')
        : encodeURIComponent(char);
  }
  return out;
}

const queryValue = fc.oneof(shortStrings, numbers.map(String));

function queries(endpoint: Endpoint): fc.Arbitrary<string> {
  const names = [...endpoint.query.map((parameter) => parameter.name), 'unknown', '__proto__'];
  return fc
    .array(fc.tuple(fc.constantFrom(...names), queryValue, fc.boolean()), { minLength: 1, maxLength: 4 })
    .map((pairs) =>
      pairs
        .map(([name, value, raw]) => `${encodeAny(name)}=${raw ? value.replace(/[#?/&\s]/g, '') : encodeAny(value)}`)
        .join('&'),
    );
}

const pathIds = fc.oneof(
  fc.uuid(),
  fc.uuid().map((id) => id.toUpperCase()),
  fc.uuid().map((id) => `%7B${id}%7D`),
  shortStrings.filter((s) => s.length > 0 && s !== '.' && s !== '..').map(encodeAny),
  fc.constantFrom('%zz', '%00', '%', '%E0%A4%A', 'a'.repeat(5000), '00000000-0000-0000-0000-000000000000', '-1', '1'),
);

let t: TestPanel;
let token: string;
let fingerprint: DatabaseFingerprint;
/** The database as of the last refused request; unknown after an accepted change. */
let known: Record<string, string> | undefined;
let endpoints: Endpoint[];
/** A real id per resource, so that fuzzed bodies reach the routes' logic past the 404. */
const realIds = new Map<string, string>();
const tally = {
  requests: 0,
  refused: 0,
  accepted: 0,
  byKind: new Map<string, number>(),
  byStatus: new Map<number, number>(),
};

const f = fixtures(() => ({ t, token }));

beforeAll(async () => {
  t = await startTestPanel();
  token = (await f.createToken({ name: 'fuzzer' }, await t.login())).token;
  endpoints = await readEndpoints(t, token);
  // No agent answers probes here: POST /api/outbounds/check waits out each hop's probe timeout.
  expect((await t.call('PATCH', 'settings', { token, body: { probeTimeoutMs: 500 } })).status).toBe(200);
  fingerprint = await openDatabaseFingerprint(t, VOLATILE);
  const node = await f.createNode();
  const iface = await f.createInterface({ nodeId: node.id });
  const client = await f.createClient({ interfaceIds: [iface.id] });
  const host = await f.createHost({ interfaceId: iface.id, name: 'edge', address: 'vpn.example.org', port: 443 });
  const decoy = await f.createToken({ name: 'decoy' });
  realIds
    .set('nodes', node.id)
    .set('interfaces', iface.id)
    .set('clients', client.id)
    .set('devices', client.devices[0].id);
  realIds.set('hosts', host.id).set('tokens', decoy.id);
  const hook = await f.call('POST', 'webhooks', { name: 'fuzzed', url: 'https://hooks.example.org/w' });
  realIds.set('webhooks', hook.body.id as string);
}, 60_000);

afterAll(async () => {
  await fingerprint?.close();
  await t?.stop();
  const kinds = [...tally.byKind].map(([kind, n]) => `${kind}: ${n}`).join('; ');
  const statuses = [...tally.byStatus]
    .sort(([a], [b]) => a - b)
    .map(([status, n]) => `${status}×${n}`)
    .join(' ');
  process.stdout.write(
    `fuzz: ${tally.requests} requests over ${endpoints?.length} routes (${tally.refused} refused, ${tally.accepted} accepted); ${kinds}; statuses ${statuses}\n`,
  );
});

/** The route's example as the body of a request whose query or path is fuzzed. */
function exampleBody(endpoint: Endpoint): BodyInput | undefined {
  return endpoint.example === null ? undefined : { kind: 'the example body', json: endpoint.example };
}

/** Sends one fuzzed request and checks the answer; a refusal must leave the database as it was. */
async function probe(endpoint: Endpoint, kind: string, path: string, body?: BodyInput): Promise<void> {
  const before = endpoint.method === 'GET' ? undefined : (known ??= await fingerprint.read());
  const headers: Record<string, string> = {};
  let payload: unknown;
  if (body && 'text' in body) {
    headers['content-type'] = body.contentType;
    payload = body.text;
  } else if (body) {
    // JSON.stringify of a string is its JSON text: send it as such, not verbatim.
    payload = typeof body.json === 'string' ? JSON.stringify(body.json) : body.json === undefined ? 'null' : body.json;
  }
  const what = kind === 'body' && body ? body.kind : kind;
  const label = `${routeKey(endpoint)} [${what}] ${path.slice(0, 300)}`;
  let answer: Awaited<ReturnType<TestPanel['call']>>;
  try {
    answer = await t.call(endpoint.method, path, { token, headers, body: payload });
  } catch (error) {
    throw new Error(shorten(`${label}: ${(error as Error).message}`), { cause: error });
  }
  tally.requests++;
  tally.byKind.set(what, (tally.byKind.get(what) ?? 0) + 1);
  tally.byStatus.set(answer.status, (tally.byStatus.get(answer.status) ?? 0) + 1);
  expect({
    label,
    status: answer.status < 500 ? 'below 500' : answer.status,
    body: answer.status < 500 ? null : answer.body,
  }).toEqual({ label, status: 'below 500', body: null });
  if (answer.status < 400) {
    tally.accepted++;
    // A bulk job changes clients after its 202: the next fingerprint is taken once it has ended.
    if (answer.status === 202 && typeof answer.body?.id === 'string')
      await jobEnded((jobPath) => t.call('GET', jobPath, { token }), answer.body.id as string);
    // Even a GET may write: a client's subscription link is made the first time it is asked for.
    known = undefined;
    return;
  }
  tally.refused++;
  expect({ label, refusal: isRefusal(answer.body), body: answer.body }).toEqual({
    label,
    refusal: true,
    body: expect.anything(),
  });
  expect(answer.body.error.length).toBeGreaterThan(0);
  if (before) expect({ label, tables: await fingerprint.read() }).toEqual({ label, tables: before });
}

/** A report fit to read: long runs of one character collapsed, the whole cut at 6,000 characters. */
function shorten(text: string): string {
  return text.replace(/(.)\1{40,}/g, (run, char: string) => `${char}…(${run.length} times)`).slice(0, 6000);
}

/**
 * fc.assert with the run's settings, per route; returns the routes' failures, each cut short
 * (values can be 70 KB long), so that one run reports every failing route, not only the first.
 */
async function failures<T>(
  routes: Endpoint[],
  inputs: (endpoint: Endpoint) => fc.Arbitrary<T>,
  run: (endpoint: Endpoint, input: T) => Promise<void>,
): Promise<string[]> {
  const failed: string[] = [];
  for (const endpoint of routes) {
    try {
      await fc.assert(
        fc.asyncProperty(inputs(endpoint), (input) => run(endpoint, input)),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
    } catch (error) {
      const cause = (error as Error).cause as Error | undefined;
      failed.push(shorten(`${routeKey(endpoint)}: ${(error as Error).message}\ncause: ${cause?.message ?? 'none'}`));
    }
  }
  return failed;
}

describe('fuzzing every route', () => {
  test('the route catalogue is read from the panel', () => {
    expect(endpoints.length).toBeGreaterThan(30);
  });

  test('hostile bodies', async () => {
    const routes = endpoints.filter((candidate) => ['POST', 'PUT', 'PATCH'].includes(candidate.method));
    const path = (endpoint: Endpoint) =>
      concretePath(endpoint.path, () => realIds.get(resourceOf(endpoint.path)) ?? randomUUID());
    expect(
      await failures(
        routes,
        (endpoint) => bodies(endpoint.example),
        (endpoint, body) => probe(endpoint, 'body', path(endpoint), body),
      ),
    ).toEqual([]);
  }, 600_000);

  test('hostile query strings', async () => {
    // A DELETE would succeed on the real id and take the fixture away from the rest of the run.
    const path = (endpoint: Endpoint) =>
      concretePath(endpoint.path, () =>
        endpoint.method === 'DELETE' ? randomUUID() : (realIds.get(resourceOf(endpoint.path)) ?? randomUUID()),
      );
    expect(
      await failures(endpoints, queries, (endpoint, query) =>
        probe(endpoint, 'query string', `${path(endpoint)}?${query}`, exampleBody(endpoint)),
      ),
    ).toEqual([]);
  }, 600_000);

  test('hostile path ids', async () => {
    const routes = endpoints.filter((candidate) => candidate.path.includes('{'));
    expect(
      await failures(
        routes,
        () => pathIds,
        (endpoint, id) =>
          probe(
            endpoint,
            'path id',
            concretePath(endpoint.path, () => id),
            exampleBody(endpoint),
          ),
      ),
    ).toEqual([]);
  }, 600_000);
});
