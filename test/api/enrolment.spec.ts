import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { pinOfPem, publicKeyPinOfPem } from '#libs/contracts/certificate-pin.js';
import { anyCertHttps } from '../support/any-cert-https.js';
import { REDIS_URL } from '../support/environment.js';
import { OWNER, startTestPanel, type TestPanel } from '../support/test-panel.js';

/**
 * The enrolment command a node's creation prints (its pins; the installer's own run is in
 * test/e2e/install-agent.spec.ts), and enrolment when the queue store refuses the grant: the panel's own Redis user here may not run
 * ACL commands, so giving the node its Redis user fails. The agent gets a 503, the one-time
 * secret stays valid and nothing is half-written; once the panel may grant, the same secret works.
 */

const username = `wt-limited-${randomBytes(4).toString('hex')}`;
const password = randomBytes(16).toString('hex');
let admin: Redis;
let t: TestPanel;
let token: string;

beforeAll(async () => {
  admin = new Redis(REDIS_URL);
  // Everything BullMQ and the panel need, except ACL: granting a node its user must fail.
  await admin.call('ACL', 'SETUSER', username, 'on', `>${password}`, '~*', '&*', '+@all', '-acl');
  const url = new URL(REDIS_URL);
  url.username = username;
  url.password = password;
  t = await startTestPanel({ REDIS_URL: url.toString() });
  token = await t.login();
});

afterAll(async () => {
  await t?.stop();
  await admin?.call('ACL', 'DELUSER', username);
  admin?.disconnect();
});

test('a grant the queue store refuses leaves the secret valid and the node untouched; the same secret works later', async () => {
  const node = await t.call('POST', 'nodes', { token, body: { name: 'grant-refused', address: '192.0.2.30' } });
  expect(node.status).toBe(201);
  const secret: string = node.body.enrolment.secret;
  const before = await t.query(
    'select enrolment_hash, credential_hash, queue_password_hash, enrolled_at from node_agents where node_id = $1',
    [node.body.id],
  );

  const refused = await t.call('POST', 'agent/enrol', { body: { secret } });
  expect(refused.status).toBe(503);
  expect(refused.body).toEqual({ error: expect.stringContaining('enrolment secret is still valid'), field: '' });
  expect(
    await t.query(
      'select enrolment_hash, credential_hash, queue_password_hash, enrolled_at from node_agents where node_id = $1',
      [node.body.id],
    ),
  ).toEqual(before);

  await admin.call('ACL', 'SETUSER', username, '+acl');
  const enrolled = await t.call('POST', 'agent/enrol', { body: { secret } });
  expect(enrolled.status).toBe(200);
  expect(enrolled.body).toMatchObject({
    nodeId: node.body.id,
    credential: expect.stringMatching(/^wnc_/),
    queue: { kind: 'redis', username: expect.stringContaining(node.body.id) },
  });
  expect((await t.call('POST', 'agent/enrol', { body: { secret } })).status).toBe(401);
});

describe('the one-line enrolment command', () => {
  let pinned: TestPanel;
  let ownerToken: string;
  const PUBLIC = 'https://panel.example.net:9443';

  beforeAll(async () => {
    pinned = await startTestPanel({ WARREN_TLS: 'on', WARREN_PUBLIC_URL: `${PUBLIC}/` });
    ownerToken = (await anyCertHttps(`${pinned.panel.origin}/api/auth/login`, { method: 'POST', body: OWNER })).body
      .token;
  });
  afterAll(async () => {
    await pinned?.stop();
  });

  test('carries the pins whenever the panel serves its self-made certificate, WARREN_PUBLIC_URL or not; downloads, then runs', async () => {
    const pem = readFileSync(join(pinned.config.dataDir, 'tls', 'cert.pem'), 'utf8');
    const node = await anyCertHttps(`${pinned.panel.origin}/api/nodes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ownerToken}` },
      body: { name: 'public-url-pinned', address: '192.0.2.31' },
    });
    expect(node.status).toBe(201);
    const { secret, command, agentCommand } = node.body.enrolment as Record<string, string>;
    expect(agentCommand).toBe(
      `WARREN_ENROL_SECRET='${secret}' warren-agent --controller '${PUBLIC}' --pin ${pinOfPem(pem)}`,
    );
    // The script runs only once downloaded whole; a failed download is the line's exit status.
    expect(command).toBe(
      `(script=$(curl -fsSL -k --pinnedpubkey '${publicKeyPinOfPem(pem)}' '${PUBLIC}/api/agent/install.sh') && ` +
        `WARREN_ENROL_SECRET='${secret}' bash -c "$script" install-agent.sh --controller '${PUBLIC}' --pin ${pinOfPem(pem)})`,
    );
  });
});
