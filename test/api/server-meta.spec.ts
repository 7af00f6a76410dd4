import { generate } from 'otplib';
import { Redis } from 'ioredis';
import { WARREN_VERSION } from '#libs/version/warren-version.js';
import { en } from '../../apps/web/src/locales/en.js';
import { answer, fixtures, signedInPanel } from '../support/fixtures.js';
import { refusal } from '../support/refusal.js';
import { OWNER, startTestPanel } from '../support/test-panel.js';

const session = signedInPanel();

const { typed, createUser, createNode, createInterface, createToken } = fixtures(session);

async function codes(): Promise<string[]> {
  const response = await answer(typed().GET('/api/security/warnings'));
  expect(response.status).toBe(200);
  for (const warning of response.body.warnings) {
    expect(warning.message.length).toBeGreaterThan(10);
    expect(warning.action.length).toBeGreaterThan(10);
  }
  return response.body.warnings.map((warning) => warning.code);
}

describe('GET /api/security/warnings', () => {
  test('a fresh panel: the owner password and two-factor, plain HTTP without a proxy; most severe first', async () => {
    const response = await answer(typed().GET('/api/security/warnings'));
    const warnings = response.body.warnings;
    expect(warnings.map((warning) => warning.code)).toEqual(
      expect.arrayContaining(['owner-password-unchanged', 'owner-two-factor-off', 'tls-off-without-proxy']),
    );
    expect(warnings.map((warning) => warning.code)).not.toContain('private-targets-allowed');
    expect(warnings.map((warning) => warning.code)).not.toContain('backups-not-scheduled');
    const ranks = warnings.map((warning) => ['critical', 'warning', 'info'].indexOf(warning.severity));
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    expect(warnings.find((warning) => warning.code === 'owner-password-unchanged')).toMatchObject({
      severity: 'critical',
      message: expect.stringContaining(OWNER.username),
    });
  });

  test('allowPrivateTargets and the backup schedule: the warning follows the setting both ways', async () => {
    expect((await answer(typed().PATCH('/api/settings', { body: { allowPrivateTargets: true } }))).status).toBe(200);
    expect(await codes()).toContain('private-targets-allowed');
    expect((await answer(typed().PATCH('/api/settings', { body: { allowPrivateTargets: false } }))).status).toBe(200);
    expect(await codes()).not.toContain('private-targets-allowed');

    expect((await answer(typed().PATCH('/api/settings', { body: { backupIntervalHours: 0 } }))).status).toBe(200);
    expect(await codes()).toContain('backups-not-scheduled');
    expect((await answer(typed().PATCH('/api/settings', { body: { backupIntervalHours: 24 } }))).status).toBe(200);
    expect(await codes()).not.toContain('backups-not-scheduled');
  });

  test('an agent older than the panel is named with its version until it reports the panel’s', async () => {
    const node = await createNode();
    expect(await codes()).not.toContain('agents-older-than-panel');
    await session().t.query('update node_agents set version = $2 where node_id = $1', [node.id, '0.0.1']);
    const response = await answer(typed().GET('/api/security/warnings'));
    const older = response.body.warnings.find((warning) => warning.code === 'agents-older-than-panel');
    expect(older?.message).toContain(`${node.name} (0.0.1)`);
    await session().t.query('update node_agents set version = $2 where node_id = $1', [node.id, WARREN_VERSION]);
    expect(await codes()).not.toContain('agents-older-than-panel');
  });

  test("the queue store's Redis: warned exactly when its maxmemory is 0", async () => {
    const redis = new Redis(session().t.config.redisUrl!, { lazyConnect: true });
    try {
      await redis.connect();
      const maxmemory = Number(/^maxmemory:(\d+)/m.exec(await redis.info('memory'))![1]);
      expect((await codes()).includes('redis-without-maxmemory')).toBe(maxmemory === 0);
    } finally {
      redis.disconnect();
    }
  });

  test('owner and admin read them; a viewer and a reseller are refused', async () => {
    const admin = await createUser('admin');
    expect((await session().t.call('GET', 'security/warnings', { token: admin.token })).status).toBe(200);
    for (const role of ['viewer', 'reseller'] as const) {
      const user = await createUser(role);
      const refused = await session().t.call('GET', 'security/warnings', { token: user.token });
      expect({ status: refused.status, body: refused.body }).toEqual({ status: 403, body: refusal('') });
    }
    expect((await session().t.call('GET', 'security/warnings', {})).status).toBe(401);
  });

  test("the owner changing the password and turning two-factor on clears the owner's warnings", async () => {
    const changed = await answer(
      typed().PATCH('/api/auth/me', {
        body: { currentPassword: OWNER.password, newPassword: 'owner-password-456' },
      }),
    );
    expect(changed.status).toBe(200);
    expect(await codes()).not.toContain('owner-password-unchanged');
    const started = await session().t.call('POST', 'auth/totp/start', {
      token: session().token,
      body: { password: 'owner-password-456' },
    });
    expect(started.status).toBe(200);
    expect(await codes()).toContain('owner-two-factor-off');
    const code = await generate({ secret: started.body.secret, epoch: Math.floor(Date.now() / 1000) });
    expect(
      (await session().t.call('POST', 'auth/totp/confirm', { token: session().token, body: { code } })).status,
    ).toBe(200);
    expect(await codes()).not.toContain('owner-two-factor-off');
  });
});

describe('TLS behind a trusted proxy', () => {
  test('no tls-off-without-proxy warning when WARREN_TRUSTED_PROXIES names the proxy', async () => {
    const proxied = await startTestPanel({ WARREN_TRUSTED_PROXIES: '127.0.0.1' });
    try {
      const owner = await proxied.login();
      const response = await proxied.call('GET', 'security/warnings', { token: owner });
      expect(response.status).toBe(200);
      const found = (response.body as { warnings: { code: string }[] }).warnings.map((warning) => warning.code);
      expect(found).not.toContain('tls-off-without-proxy');
      expect(found).toContain('owner-password-unchanged');
    } finally {
      await proxied.stop();
    }
  });
});

describe('GET /api/meta and GET /api/i18n/{locale}', () => {
  test('meta is public: the version, languages and features, and nothing else (no counts, no settings)', async () => {
    const response = await session().t.call('GET', 'meta', {});
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      version: WARREN_VERSION,
      basePath: '',
      locales: ['en', 'fa'],
      defaultLocale: 'en',
      features: expect.arrayContaining(['two-factor', 'security-warnings']),
    });
  });

  test("i18n answers the web panel's own catalogue per locale, publicly; another locale is a 404 on locale", async () => {
    const english = await session().t.call('GET', 'i18n/en', {});
    expect(english.status).toBe(200);
    expect(english.body).toEqual({ locale: 'en', direction: 'ltr', messages: en });
    const persian = await session().t.call('GET', 'i18n/fa', {});
    expect(persian.body).toMatchObject({ locale: 'fa', direction: 'rtl', messages: { nav: { overview: 'نمای کلی' } } });
    expect(Object.keys(persian.body.messages).sort()).toEqual(Object.keys(en).sort());
    for (const locale of ['de', 'EN', 'en-US', 'constructor', '__proto__', 'x'.repeat(40), '..%2Fen']) {
      const refused = await session().t.call('GET', `i18n/${locale}`, {});
      expect({ locale, status: refused.status, body: refused.body }).toEqual({
        locale,
        status: 404,
        body: refusal('locale'),
      });
    }
    // A NUL is refused by the request layer before any route runs.
    expect((await session().t.call('GET', 'i18n/%00', {})).status).toBe(400);
  });
});

describe('GET /api/configs', () => {
  test("every enabled interface's server config; keys only for the owner's session; owner only", async () => {
    const iface = await createInterface();
    const withKeys = await answer(typed().GET('/api/configs'));
    expect(withKeys.status).toBe(200);
    const mine = withKeys.body.configs.find((config) => config.interfaceName === iface.name)!;
    expect(mine).toMatchObject({ mode: 'standard', peers: 0, secretsHidden: false });
    expect(mine.config).toMatch(/^\[Interface\]\nPrivateKey = [A-Za-z0-9+/]{43}=\nListenPort = \d+\n/);
    expect(mine.config).toContain(`ListenPort = ${iface.listenPort}`);

    const ownerToken = await createToken();
    const viaToken = await session().t.call('GET', 'configs', { token: ownerToken.token });
    expect(viaToken.status).toBe(200);
    const hidden = (viaToken.body as typeof withKeys.body).configs.find(
      (config) => config.interfaceName === iface.name,
    )!;
    expect(hidden.secretsHidden).toBe(true);
    expect(hidden.config).not.toContain('PrivateKey');
    expect(hidden.config).toContain(`ListenPort = ${iface.listenPort}`);

    const admin = await createUser('admin');
    expect((await session().t.call('GET', 'configs', { token: admin.token })).status).toBe(403);
  });
});
