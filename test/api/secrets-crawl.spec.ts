import { BackupJobs } from '../../apps/controller/src/backups/backup-jobs.js';
import { randomUUID } from 'node:crypto';
import { generate } from 'otplib';
import { generateKeyPair } from '#libs/wireguard/keys.js';
import { jobEnded } from '../support/bulk-job.js';
import { fixtures } from '../support/fixtures.js';
import { concretePath, readEndpoints, resourceOf, routeKey, type Endpoint } from '../support/route-catalogue.js';
import { OWNER, startTestPanel, type TestPanel } from '../support/test-panel.js';
import { tapOutput, type OutputTap } from '../support/output-tap.js';

/**
 * The secrets crawl: make one of every kind of secret the panel holds or hands out, then read
 * every GET route (from the route table, so a new route is crawled the day it appears), the
 * panel's whole log at its most verbose, and every row of its database, and find each secret only
 * where it is meant to be:
 * - a client's private and preshared keys: in that client's profiles and configs, and stored
 *   (the panel builds configs from them);
 * - an interface's private key: stored (the agent needs it), never shown;
 * - outbound (hop) passwords and a WireGuard hop's private and preshared keys: stored (the agent
 *   runs the hop with them), never shown;
 * - token values, session tokens, enrolment secrets, node credentials, node queue passwords and
 *   user passwords (the owner's, an operator's temporary ones): shown once when made, never
 *   again, never logged, stored only as hashes; those hashes: stored, never shown.
 * - a user's TOTP secret: shown once (by POST /api/auth/totp/start), stored (codes are checked
 *   with it), never shown again, never logged.
 * - a webhook's signing secret: shown once (by POST /api/webhooks), stored (deliveries are signed
 *   with it); the SMTP password: write-only, stored (mail is sent with it). Neither ever shown
 *   by a GET nor logged.
 */

/** Routes that exist to hand a client's own keys to its owner. */
const SHOWS_CLIENT_KEYS = [
  'GET /api/devices/{id}/profiles',
  'GET /api/devices/{id}/profile',
  'GET /api/clients/{id}/configs',
];

interface Secret {
  kind: string;
  value: string;
  /** Where it may appear in a GET answer ("route key"), besides nowhere. */
  shownBy: string[];
  /** Whether the database may hold it as it is (otherwise only a hash of it). */
  storedPlain: boolean;
}

let t: TestPanel;
let token: string;
let endpoints: Endpoint[];
const secrets: Secret[] = [];
const realIds = new Map<string, string>();
let backupName = '';
/** The enrolled node's credential: routes only an agent calls are crawled with it. */
let nodeCredential = '';
/** Public to the route table (no user session) but answered only to an agent's node credential. */
const NODE_CREDENTIAL_ROUTES = new Set(['GET /api/agent/update/package.tgz']);
/** Routes with nothing to show until work ran (a node update needs a linked agent): 404 here. */
const NOTHING_YET = new Set(['GET /api/nodes/{id}/update']);
let tap: OutputTap;

const f = fixtures(() => ({ t, token }));

beforeAll(async () => {
  tap = tapOutput();
  // Every line the panel can write (debug), as JSON: request lines, job lines, Nest's own.
  t = await startTestPanel({ WARREN_LOG_LEVEL: 'debug', WARREN_LOG_FORMAT: 'json' });
  const session = await t.login();
  secrets.push({ kind: 'session token', value: session, shownBy: [], storedPlain: false });
  secrets.push({ kind: 'owner password', value: OWNER.password, shownBy: [], storedPlain: false });
  const issued = await f.createToken({ name: 'crawler' }, session);
  token = issued.token;
  secrets.push({ kind: 'API token', value: issued.token, shownBy: [], storedPlain: false });
  const spare = await f.createToken({ name: 'spare' });
  secrets.push({ kind: 'API token', value: spare.token, shownBy: [], storedPlain: false });

  // An operator made with a temporary password, then given another by the owner; and their
  // password hash as stored, which no answer may carry either.
  const operatorPassword = `operator-${randomUUID()}`;
  const operator = await t.call('POST', 'admins', {
    token: session,
    body: { username: 'crawled-operator', password: operatorPassword, role: 'viewer' },
  });
  expect(operator.status).toBe(201);
  const resetPassword = `reset-${randomUUID()}`;
  const reset = await t.call('PATCH', `admins/${operator.body.id}`, {
    token: session,
    body: { password: resetPassword },
  });
  expect(reset.status).toBe(200);
  expect(
    (await t.call('POST', 'auth/login', { body: { username: 'crawled-operator', password: resetPassword } })).status,
  ).toBe(200);
  secrets.push({ kind: 'operator password', value: operatorPassword, shownBy: [], storedPlain: false });
  secrets.push({ kind: 'operator password', value: resetPassword, shownBy: [], storedPlain: false });
  const [hashed] = await t.query<{ password_hash: string }>('select password_hash from users where id = $1', [
    operator.body.id,
  ]);
  secrets.push({ kind: 'password hash', value: hashed.password_hash, shownBy: [], storedPlain: true });
  realIds.set('admins', operator.body.id);

  // A node that enrolled (its credential and queue password exist) and one still waiting (its secret is live).
  const enrolledNode = await f.createNode();
  secrets.push({ kind: 'enrolment secret', value: enrolledNode.enrolment!.secret, shownBy: [], storedPlain: false });
  const enrolled = await t.call('POST', 'agent/enrol', { body: { secret: enrolledNode.enrolment!.secret } });
  expect(enrolled.status).toBe(200);
  secrets.push({ kind: 'node credential', value: enrolled.body.credential, shownBy: [], storedPlain: false });
  nodeCredential = enrolled.body.credential;
  if (enrolled.body.queue?.password)
    secrets.push({ kind: 'node queue password', value: enrolled.body.queue.password, shownBy: [], storedPlain: false });
  const waiting = await f.createNode();
  secrets.push({ kind: 'enrolment secret', value: waiting.enrolment!.secret, shownBy: [], storedPlain: false });

  const iface = await f.createInterface({ nodeId: enrolledNode.id });
  const host = await f.createHost({ interfaceId: iface.id, name: 'edge', address: 'vpn.example.org', port: 443 });
  const client = await f.createClient({ interfaceIds: [iface.id] });
  const [stored] = await t.query<{ private_key: string }>('select private_key from interfaces where id = $1', [
    iface.id,
  ]);
  secrets.push({ kind: 'interface private key', value: stored.private_key, shownBy: [], storedPlain: true });
  // A webhook's signing secret: shown once by its creation, stored (deliveries are signed with it).
  const hook = await t.call('POST', 'webhooks', {
    token: session,
    body: { name: 'crawl', url: 'https://hooks.example.org/w' },
  });
  secrets.push({ kind: 'webhook secret', value: hook.body.secret, shownBy: [], storedPlain: true });
  realIds.set('webhooks', hook.body.id);
  // The SMTP password: write-only, stored (mail is sent with it), never shown.
  const smtpPassword = `smtp-${randomUUID()}`;
  await t.call('PATCH', 'settings/mail', {
    token: session,
    body: { host: 'smtp.example.org', password: smtpPassword },
  });
  secrets.push({ kind: 'SMTP password', value: smtpPassword, shownBy: [], storedPlain: true });
  for (const account of await f.accountsOf(client.id)) {
    secrets.push({
      kind: 'client private key',
      value: account.private_key,
      shownBy: SHOWS_CLIENT_KEYS,
      storedPlain: true,
    });
    secrets.push({
      kind: 'client preshared key',
      value: account.preshared_key,
      shownBy: SHOWS_CLIENT_KEYS,
      storedPlain: true,
    });
  }
  // Hops on the local node (what GET /api/outbounds lists by default): a SOCKS password, a shadowsocks password, a WireGuard hop's private and preshared keys.
  const hopPassword = `socks-${randomUUID()}`;
  const ssPassword = `ss-${randomUUID()}`;
  const hopKey = generateKeyPair().privateKey;
  const hopPsk = generateKeyPair().privateKey;
  const hops = [
    { tag: 'crawl-socks', kind: 'socks', address: '203.0.113.30:1080', username: 'crawler', password: hopPassword },
    { tag: 'crawl-ss', kind: 'shadowsocks', address: '203.0.113.31:8388', method: 'aes-256-gcm', password: ssPassword },
    {
      tag: 'crawl-wg',
      kind: 'wireguard',
      address: '203.0.113.32:51820',
      privateKey: hopKey,
      presharedKey: hopPsk,
      peerPublicKey: generateKeyPair().publicKey,
      tunnelAddress: '10.66.0.2/32',
    },
  ];
  const made = [];
  for (const body of hops) {
    const created = await t.call('POST', 'outbounds', { token: session, body });
    expect(created.status).toBe(201);
    made.push(created.body);
  }
  secrets.push({ kind: 'outbound password', value: hopPassword, shownBy: [], storedPlain: true });
  secrets.push({ kind: 'outbound password', value: ssPassword, shownBy: [], storedPlain: true });
  secrets.push({ kind: 'hop private key', value: hopKey, shownBy: [], storedPlain: true });
  secrets.push({ kind: 'hop preshared key', value: hopPsk, shownBy: [], storedPlain: true });
  // A user's two-factor sign-in: the TOTP secret (stored as it is: the panel checks codes with
  // it), answered once, by start. (Recovery codes are too short to crawl for without chance
  // matches; totp.spec.ts finds them stored only as hashes.)
  const twoFactor = await f.createUser('viewer');
  const started = await t.call('POST', 'auth/totp/start', {
    token: twoFactor.token,
    body: { password: twoFactor.password },
  });
  const confirmed = await t.call('POST', 'auth/totp/confirm', {
    token: twoFactor.token,
    body: { code: await generate({ secret: started.body.secret }) },
  });
  expect(confirmed.status).toBe(200);
  secrets.push({ kind: 'TOTP secret', value: started.body.secret, shownBy: [], storedPlain: true });
  const rule = await t.call('POST', 'routing/rules', {
    token: session,
    body: { name: 'crawl', ports: ['443'], outboundTag: 'crawl-wg' },
  });
  expect(rule.status).toBe(201);
  realIds.set('outbounds', made[2].id);
  realIds.set('nodes', enrolledNode.id).set('interfaces', iface.id).set('hosts', host.id).set('clients', client.id);
  realIds.set('devices', client.devices[0].id).set('tokens', spare.id);
  // GET /api/i18n/{locale}: the locale is its "id" (another is a 404).
  realIds.set('i18n', 'en');
  // A finished backup (an archive holds every secret by design: its routes are the owner's; the
  // crawl sees it compressed) and its job, for the backup routes' {name} and {id}.
  const jobs = t.panel.app.get(BackupJobs);
  const jobId = await jobs.start('backup', { trigger: 'api' });
  const backupRun = await jobs.wait(jobId, 30_000);
  expect(backupRun.state).toBe('completed');
  backupName = (backupRun as { value: { name: string } }).value.name;
  realIds.set('backups', jobId);
  // A finished bulk job, for GET /api/jobs/{id} (enabling an enabled client changes nothing).
  const bulk = await t.call('POST', 'clients/bulk', { token: session, body: { ids: [client.id], action: 'enable' } });
  expect(bulk.status).toBe(202);
  await jobEnded((path) => t.call('GET', path, { token: session }), bulk.body.id as string);
  realIds.set('jobs', bulk.body.id as string);
  endpoints = await readEndpoints(t, token);
}, 60_000);

afterAll(async () => {
  await t?.stop();
  tap?.untap();
});

/** The secrets found in `text`, as "kind" labels. */
function found(text: string, allowedFor?: string): string[] {
  return secrets
    .filter((secret) => text.includes(secret.value) && !(allowedFor && secret.shownBy.includes(allowedFor)))
    .map((secret) => secret.kind);
}

test('every kind of secret was made', () => {
  expect(new Set(secrets.map((secret) => secret.kind))).toEqual(
    new Set([
      'session token',
      'owner password',
      'operator password',
      'password hash',
      'API token',
      'enrolment secret',
      'node credential',
      'node queue password',
      'interface private key',
      'client private key',
      'client preshared key',
      'outbound password',
      'hop private key',
      'hop preshared key',
      'TOTP secret',
      'webhook secret',
      'SMTP password',
    ]),
  );
  for (const secret of secrets) expect(secret.value.length).toBeGreaterThanOrEqual(16);
});

test('no GET route shows a secret it is not meant to show', async () => {
  const crawled: string[] = [];
  for (const endpoint of endpoints.filter((candidate) => candidate.method === 'GET')) {
    const path = concretePath(endpoint.path, (param) =>
      param === 'name' ? backupName : (realIds.get(resourceOf(endpoint.path)) ?? 'missing'),
    );
    const agentOnly = NODE_CREDENTIAL_ROUTES.has(routeKey(endpoint));
    for (const as of [token, undefined]) {
      const answer = await t.call('GET', path, { token: as && agentOnly ? nodeCredential : as });
      const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
      expect({ route: routeKey(endpoint), status: answer.status, leaked: found(text, routeKey(endpoint)) }).toEqual({
        route: routeKey(endpoint),
        status: !as && (endpoint.auth || agentOnly) ? 401 : as && NOTHING_YET.has(routeKey(endpoint)) ? 404 : 200,
        leaked: [],
      });
      if (as) crawled.push(routeKey(endpoint));
    }
  }
  // The routes meant to show a client's keys do show them (so the crawl could see a key at all).
  for (const route of SHOWS_CLIENT_KEYS) expect(crawled).toContain(route);
  const profiles = await t.call('GET', `devices/${realIds.get('devices')}/profiles`, { token });
  expect(
    secrets
      .filter((secret) => secret.kind === 'client private key')
      .some((secret) => JSON.stringify(profiles.body).includes(secret.value)),
  ).toBe(true);
});

test('the log, at debug level, carries no secret', () => {
  const log = tap.text();
  // The crawl's requests were logged (one line each, with their ids), so the check saw them.
  expect(log).toMatch(/"reqId":"[^"]+".*"route":"\/api\/clients\/:id"/);
  expect(found(log)).toEqual([]);
});

test('the database stores one-time secrets and passwords only as hashes', async () => {
  const tables = await t.query<{ table_name: string }>(
    `select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`,
  );
  const leaks: string[] = [];
  for (const { table_name: table } of tables) {
    const rows = await t.query<{ row: string }>(`select t::text as row from "${table}" t`);
    const text = rows.map((row) => row.row).join('\n');
    for (const secret of secrets)
      if (!secret.storedPlain && text.includes(secret.value)) leaks.push(`${secret.kind} in ${table}`);
  }
  expect(leaks).toEqual([]);
});
