// `npm run fixture:upgrade` (builds, then runs this on Node 24): writes the upgrade fixture of the
// schema the built panel has now (docs/operations.md, "Upgrading"; test/api/upgrade.spec.ts).
//
// It starts the built panel (dist/) on a database of its own on the PostgreSQL server the tests
// use (DATABASE_URL, else postgres://postgres@127.0.0.1:5432/test) and Redis (REDIS_URL, else
// redis://127.0.0.1:6379), fills it through the API as operators would (and through the agent
// link for usage, as an agent reports it), then writes, under test/fixtures/upgrade/:
//
// - <number of migrations>-<last migration>.sql: `pg_dump --no-owner --no-privileges
//   --column-inserts` of it;
// - <number of migrations>-<last migration>.json: what the API answered just before the dump
//   (the upgrade test expects the same answers from the panel of a later build) and the
//   test-only credentials (passwords, API token values) it needs to sign in and to prove the
//   tokens still work.
//
// Run it once per schema change, after the new migration is committed: the files of earlier
// schemas stay, and the upgrade test restores every one of them. For a build of the past:
// `git archive <commit> | tar -x -C <dir>`, link node_modules there, build it (`node
// scripts/openapi-metadata.js && npx swc apps libs -d dist`), copy this script into it and run it
// there with WARREN_FIXTURE_BUILD=<commit> and WARREN_FIXTURE_OUT=<this tree>/test/fixtures/upgrade.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import WebSocket from 'ws';

const root = resolve(import.meta.dirname, '..');
const dist = (path) => import(join(root, 'dist/apps/controller/src', path));
const { loadConfig } = await dist('config/config.js');
const { startPanel } = await dist('panel.js');
const { MIGRATIONS } = await dist('database/migrations/index.js');
const { dropRedisPrefix } = await import(join(root, 'test/support/leftovers.js'));

const SERVER_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** The owner test/support/test-panel.ts signs in as: the upgrade test starts its panel with the same. */
const OWNER = { username: 'owner', password: 'owner-password-123' };
const migrations = MIGRATIONS.map((migration) => migration.name);
const schema = migrations.at(-1);
/**
 * Files are named by how many migrations the build has and its last one: migrations merged from
 * parallel branches can leave two builds with the same last migration and different schemas.
 */
const fixtureName = `${String(migrations.length).padStart(3, '0')}-${schema}`;
/** Which build made it: the commit, or what WARREN_FIXTURE_BUILD says (a tree outside git). */
const build =
  process.env.WARREN_FIXTURE_BUILD ??
  execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
const outDir = process.env.WARREN_FIXTURE_OUT ?? join(root, 'test/fixtures/upgrade');

const suffix = randomBytes(4).toString('hex');
const databaseName = `warren_fixture_${suffix}`;
const queuePrefix = `warren-fixture-${suffix}`;
const databaseUrl = Object.assign(new URL(SERVER_URL), { pathname: `/${databaseName}` }).toString();
const dataDir = mkdtempSync(join(tmpdir(), 'warren-fixture-'));

async function onServer(sql) {
  const client = new pg.Client({ connectionString: SERVER_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

await onServer(`CREATE DATABASE ${databaseName}`);
let panel;
try {
  panel = await startPanel(
    loadConfig({
      WARREN_DATA_DIR: dataDir,
      WARREN_HOST: '127.0.0.1',
      WARREN_PORT: '0',
      WARREN_TLS: 'off',
      DATABASE_URL: databaseUrl,
      REDIS_URL,
      WARREN_QUEUE_PREFIX: queuePrefix,
      WARREN_ADMIN_USERNAME: OWNER.username,
      WARREN_ADMIN_PASSWORD: OWNER.password,
      WARREN_LOG_LEVEL: 'error',
      WARREN_LOCAL_AGENT: 'off',
      WARREN_HOP_CHECKS: 'off',
    }),
  );
  const manifest = await populate(`${panel.origin}/api`);
  await panel.close();
  panel = undefined;
  mkdirSync(outDir, { recursive: true });
  const dump = join(outDir, `${fixtureName}.sql`);
  execFileSync('pg_dump', ['--no-owner', '--no-privileges', '--column-inserts', `--file=${dump}`, databaseUrl]);
  writeFileSync(join(outDir, `${fixtureName}.json`), `${JSON.stringify(manifest, null, 2)}\n`);
  console.log(`make-upgrade-fixture: wrote ${dump} and ${fixtureName}.json`);
} finally {
  await panel?.close();
  await dropRedisPrefix(REDIS_URL, queuePrefix);
  await onServer(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
  rmSync(dataDir, { recursive: true, force: true });
}

/** Fills the panel at `api` through its routes; the manifest: credentials and the answers to expect again. */
async function populate(api) {
  const call = async (method, path, body, token, expected = [200, 201]) => {
    const response = await fetch(`${api}/${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = await response.json();
    if (!expected.includes(response.status))
      throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
    return answer;
  };
  const signIn = async (username, password) => (await call('POST', 'auth/login', { username, password })).token;
  const owner = await signIn(OWNER.username, OWNER.password);
  const as = (token) => (method, path, body) => call(method, path, body, token);
  const o = as(owner);

  // Settings away from their defaults, and the subscription page's.
  await o('PATCH', 'settings', {
    backupIntervalHours: 6,
    backupKeep: 9,
    auditRetentionDays: 45,
    sharingWindowMinutes: 20,
    sharingMaxAddresses: 4,
    sharingAction: 'flag',
    hopCheckIntervalSeconds: 0,
    allowPrivateTargets: true,
  });
  await o('PUT', 'subscription', {
    title: 'Fixture VPN',
    supportContact: 'https://support.example.com',
    formats: ['conf', 'json'],
    language: 'fa',
  });

  // A node with two interfaces, a host, hops and routing.
  const node = await o('POST', 'nodes', { name: 'fixture-node', address: '192.0.2.10', note: 'rack 4' });
  const wg0 = await o('POST', 'interfaces', {
    nodeId: node.id,
    name: 'wg0',
    listenPort: 51820,
    subnet: '10.70.0.0/24',
    endpointHost: 'vpn.example.com',
    dns: ['1.1.1.1'],
    mtu: 1380,
  });
  const wg1 = await o('POST', 'interfaces', {
    nodeId: node.id,
    name: 'wg1',
    listenPort: 51821,
    subnet: '10.71.0.0/24',
    endpointHost: 'vpn2.example.com',
  });
  await o('POST', 'hosts', { interfaceId: wg0.id, name: 'cdn front', address: 'front.example.net', port: 443 });
  await o('POST', 'outbounds', {
    nodeId: node.id,
    tag: 'upstream-socks',
    kind: 'socks',
    address: '203.0.113.7:1080',
    username: 'user',
    password: 'fixture-socks-secret',
  });
  await o('POST', 'outbounds', {
    nodeId: node.id,
    tag: 'upstream-wg',
    kind: 'wireguard',
    address: '198.51.100.20:51820',
    peerPublicKey: 'xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=',
    tunnelAddress: '10.66.0.2',
  });
  await o('PUT', `routing?nodeId=${node.id}`, {
    defaultOutbound: 'direct',
    blockBitTorrent: true,
    blockPorts: ['25'],
    blockDomains: ['ads.example.com'],
    failClosed: true,
  });
  await o('POST', `routing/rules?nodeId=${node.id}`, {
    name: 'streaming via hop',
    domains: ['stream.example.com'],
    outboundTag: 'upstream-socks',
  });
  await o('POST', `routing/rules?nodeId=${node.id}`, { name: 'drop smtp', ports: ['587'], outboundTag: 'blocked' });

  // Host groups: one tied to a client group holding the CDN host, one untied, in an order of their own.
  const mirror = await o('POST', 'hosts', { interfaceId: wg0.id, name: 'mirror', address: 'mirror.example.net' });
  const premium = await o('POST', 'hosts/groups', { name: 'premium', clientGroups: ['family'] });
  const everyone = await o('POST', 'hosts/groups', { name: 'everyone', hostIds: [mirror.id] });
  const front = (await o('GET', `hosts?interfaceId=${wg0.id}`)).find((host) => host.name === 'cdn front');
  await o('POST', 'hosts/groups/bulk', { groupId: premium.id, hostIds: [front.id] });
  await o('POST', 'hosts/groups/reorder', { ids: [everyone.id, premium.id] });

  // Outbound subscriptions: one fetched (its hops made, a line skipped), one disabled and never
  // fetched, in an order of their own. The list is served here, on loopback (private targets are
  // allowed above); the upgraded panel runs no scheduled refresh in the tests.
  await withListServer(
    [
      `ss://${Buffer.from('aes-256-gcm:fixture-ss-secret').toString('base64url')}@203.0.113.41:8388#provider-ss`,
      'socks5://fixture:socks-pass@203.0.113.42:1080#provider-socks',
      'vmess://not-a-hop-kind',
    ].join('\n'),
    async (url) => {
      const provider = await o('POST', 'outbound-subs', { nodeId: node.id, name: 'provider', url });
      await o('POST', `outbound-subs/${provider.id}/refresh`);
      const spare = await o('POST', 'outbound-subs', {
        nodeId: node.id,
        name: 'spare provider',
        url: `${url}?spare`,
        enabled: false,
        intervalSeconds: 7200,
      });
      await o('POST', 'outbound-subs/order', { ids: [spare.id, provider.id] });
    },
  );

  // Groups, and the operators: an admin, a viewer and a reseller with ceilings.
  await o('POST', 'groups', { name: 'trial', quotaBytes: 5368709120, expiryDays: 7, deviceLimit: 1 });
  await o('POST', 'groups', { name: 'family', note: 'shared plan', deviceLimit: 4, interfaceIds: [wg0.id] });
  const users = {
    admin: { username: 'fixture-admin', password: 'fixture-admin-pass-1', role: 'admin' },
    viewer: { username: 'fixture-viewer', password: 'fixture-viewer-pass-1', role: 'viewer' },
    reseller: { username: 'fixture-reseller', password: 'fixture-reseller-pass-1', role: 'reseller' },
  };
  const tokens = {};
  for (const [key, user] of Object.entries(users)) {
    const temporary = `${user.password}-temporary`;
    const made = await o('POST', 'admins', { username: user.username, password: temporary, role: user.role });
    user.id = made.id;
    await call(
      'POST',
      'auth/password',
      { currentPassword: temporary, newPassword: user.password },
      await signIn(user.username, temporary),
    );
    tokens[key] = await signIn(user.username, user.password);
  }
  await o('PATCH', `admins/${users.reseller.id}`, {
    limits: {
      maxClients: 20,
      trafficPoolBytes: 1099511627776,
      maxExpiryDays: 30000,
      maxQuotaBytes: 107374182400,
      interfaceIds: [wg0.id, wg1.id],
    },
  });

  // Clients: quotas, expiry, several devices, both interfaces, groups, a disabled one, a reseller's.
  const expiry = '2099-06-30T00:00:00.000Z';
  const clients = [
    await o('POST', 'clients', {
      name: 'alice',
      note: 'family plan',
      groups: ['family'],
      telegramId: 5000000001,
      quotaBytes: 107374182400,
      expiresAt: expiry,
      deviceLimit: 3,
      interfaceIds: [wg0.id],
      deviceNames: ['phone', 'laptop'],
    }),
    await o('POST', 'clients', {
      name: 'bob',
      interfaceIds: [wg0.id, wg1.id],
      deviceLimit: 2,
      rateBitsPerSec: 20000000,
    }),
    await o('POST', 'clients', {
      name: 'carol',
      groups: ['trial'],
      interfaceIds: [wg1.id],
      quotaBytes: 1073741824,
      expiresAt: expiry,
    }),
    await o('POST', 'clients', { name: 'dave', interfaceIds: [wg0.id], enabled: false, note: 'paused' }),
    await o('POST', 'clients', { name: 'erin', interfaceIds: [wg0.id], startOnFirstUse: true, durationDays: 30 }),
    await call(
      'POST',
      'clients',
      { name: 'resold-frank', interfaceIds: [wg0.id], quotaBytes: 10737418240, expiresAt: expiry },
      tokens.reseller,
    ),
    await call(
      'POST',
      'clients',
      { name: 'resold-grace', interfaceIds: [wg1.id], deviceLimit: 2, expiresAt: expiry, quotaBytes: 5368709120 },
      tokens.reseller,
    ),
  ];
  await o('POST', `clients/${clients[0].id}/devices`, { name: 'tablet' });
  await o('PATCH', `clients/${clients[1].id}`, { note: 'moved to both servers', groups: ['family'] });

  // API tokens of every kind, kept with their values so the upgrade test can call with them.
  const apiTokens = [
    { as: owner, body: { name: 'automation' } },
    { as: owner, body: { name: 'read-only dashboards', readOnly: true } },
    { as: owner, body: { name: 'ci clients', routeGroups: ['clients', 'devices'], expiresAt: '2099-01-01T00:00:00Z' } },
    { as: tokens.admin, body: { name: 'admin script' } },
    { as: tokens.reseller, body: { name: 'reseller bot', routeGroups: ['clients'] } },
  ];
  const issued = [];
  for (const { as: token, body } of apiTokens) issued.push(await call('POST', 'tokens', body, token));
  await o('PATCH', `tokens/${issued[3].id}`, { enabled: false });

  // Usage as the node's agent reports it: counter batches over the link, per account and per hop.
  await report(api, as(owner), call, node, [wg0, wg1]);

  // What the API answers now: the upgrade test expects the same from a later build.
  const ids = (await o('GET', 'clients?perPage=200&sort=oldest')).items.map((client) => client.id);
  const answers = { clients: {}, configs: {} };
  for (const id of ids) {
    answers.clients[id] = await o('GET', `clients/${id}`);
    answers.configs[id] = await o('GET', `clients/${id}/configs`);
  }
  for (const path of ['settings', 'subscription', 'admins', 'tokens', 'groups', 'hosts', 'outbounds', 'nodes'])
    answers[path] = await o('GET', path);
  answers.interfaces = await o('GET', 'interfaces');
  answers.routing = await o('GET', `routing?nodeId=${node.id}`);
  // Absent from fixtures made before host groups, outbound subscriptions and hop traffic.
  answers.hostGroups = await o('GET', 'hosts/groups');
  answers.outboundSubs = await o('GET', 'outbound-subs');
  answers.nodeOutbounds = await o('GET', `outbounds?nodeId=${node.id}`);
  return {
    schema,
    migrations,
    build,
    madeAt: new Date().toISOString(),
    note: 'Test-only credentials of the upgrade fixture: made by scripts/make-upgrade-fixture.js.',
    owner: OWNER,
    users: Object.fromEntries(
      Object.entries(users).map(([key, { username, password, role, id }]) => [key, { id, username, password, role }]),
    ),
    apiTokens: issued.map(({ id, name, token }) => ({ id, name, token })),
    nodeId: node.id,
    answers,
  };
}

/** Serves `body` as an outbound subscription list on loopback while `work` runs with its URL. */
async function withListServer(body, work) {
  const server = createServer((_request, response) => response.end(body));
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  try {
    await work(`http://127.0.0.1:${server.address().port}/list.txt`);
  } finally {
    await new Promise((done) => server.close(done));
  }
}

/**
 * Enrols the node's agent by hand, sends two counter batches for every account and every hop of
 * the node (one hop's traffic reset between them, so its `since` moves), and unlinks.
 */
async function report(api, o, call, node, interfaces) {
  const { credential } = await call('POST', 'agent/enrol', { secret: node.enrolment.secret });
  const socket = new WebSocket(`${api.replace(/^http/, 'ws')}/agent/link`, {
    headers: { authorization: `Bearer ${credential}` },
  });
  const messages = [];
  socket.on('message', (data) => messages.push(JSON.parse(String(data))));
  await new Promise((done, fail) => socket.once('open', done).once('error', fail));
  const next = async (type) => {
    for (let waited = 0; waited < 10_000; waited += 20) {
      const index = messages.findIndex((message) => message.type === type);
      if (index !== -1) return messages.splice(index, 1)[0];
      await new Promise((done) => setTimeout(done, 20));
    }
    throw new Error(`no ${type} from the controller: ${JSON.stringify(messages)}`);
  };
  socket.send(
    JSON.stringify({
      type: 'hello',
      version: 'fixture-agent',
      capabilities: { root: true, wireguardKernel: false, wireguardGo: true, wg: true, nft: true, ip: true },
      gaps: [],
      appliedRevision: 0,
    }),
  );
  await next('welcome');
  const ifnames = Object.fromEntries(interfaces.map((iface) => [iface.id, iface.name]));
  const clients = (await o('GET', 'clients?perPage=200&sort=oldest')).items;
  const accounts = [];
  for (const { id } of clients) {
    const detail = await o('GET', `clients/${id}`);
    for (const device of detail.devices)
      for (const account of device.accounts) accounts.push({ ...account, clientName: detail.name });
  }
  const hops = (await o('GET', `outbounds?nodeId=${node.id}`)).filter(
    (hop) => !['direct', 'blocked'].includes(hop.kind),
  );
  const at = Date.now();
  for (const seq of [1, 2]) {
    // Reset between the batches: the second batch's bytes are all this hop has after it.
    if (seq === 2) await o('POST', `outbounds/${hops.find((hop) => hop.tag === 'upstream-wg').id}/reset`);
    const peers = accounts.map((account, i) => ({
      interface: ifnames[account.interfaceId],
      publicKey: account.publicKey,
      rxBytes: 1_000_003 * (i + 1) * seq,
      txBytes: 7_000_019 * (i + 1) + seq,
      // erin starts on first use: no handshake, so no period that would run out before a later test.
      lastHandshake: account.clientName === 'erin' ? null : at - 60_000 * (i + 1),
      endpoint: `198.51.100.${i + 1}:${40000 + i}`,
    }));
    const hopBytes = hops.map((hop, i) => ({
      id: hop.id,
      upBytes: 30_011 * (i + 1) * seq,
      downBytes: 90_007 * (i + 1) + seq,
    }));
    socket.send(
      JSON.stringify({ type: 'counters', seq, at: at - 1000 * (2 - seq), since: at - 2000, peers, hops: hopBytes }),
    );
    await next('ack');
  }
  socket.close();
  await new Promise((done) => socket.once('close', done));
}
