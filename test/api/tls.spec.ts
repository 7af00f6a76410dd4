import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { anyCertHttps as https } from '../support/any-cert-https.js';
import { OWNER, startTestPanel, type TestPanel } from '../support/test-panel.js';

describe('HTTPS', () => {
  let t: TestPanel | undefined;
  afterEach(async () => {
    await t?.stop();
    t = undefined;
  });

  test('by default: a self-signed certificate made once and kept in the data directory', async () => {
    t = await startTestPanel({ WARREN_TLS: 'on' });
    expect(t.panel.origin).toMatch(/^https:/);
    const health = await https(`${t.panel.origin}/api/health`);
    expect(health.status).toBe(200);
    const pem = readFileSync(join(t.config.dataDir, 'tls', 'cert.pem'), 'utf8');
    expect(new X509Certificate(pem).fingerprint256).toBe(health.fingerprint);

    const login = await https(`${t.panel.origin}/api/auth/login`, { method: 'POST', body: OWNER });
    expect(login.status).toBe(200);
    const docs = await https(`${t.panel.origin}/api/docs`, {
      headers: { authorization: `Bearer ${login.body.token}` },
    });
    const curl: string = docs.body.groups[0].endpoints[0].curl;
    expect(curl).toMatch(/^curl -k /); // self-signed: the ready command must work as printed
    expect(curl).toContain(`'${t.panel.origin}/api/`);
  });

  test('WARREN_TLS_CERT and WARREN_TLS_KEY are served when given', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warren-tls-'));
    const pems = await generate([{ name: 'commonName', value: 'given.example' }], {
      keyType: 'ec',
      algorithm: 'sha256',
    });
    writeFileSync(join(dir, 'cert.pem'), pems.cert);
    writeFileSync(join(dir, 'key.pem'), pems.private);
    t = await startTestPanel({
      WARREN_TLS: 'on',
      WARREN_TLS_CERT: join(dir, 'cert.pem'),
      WARREN_TLS_KEY: join(dir, 'key.pem'),
    });
    const health = await https(`${t.panel.origin}/api/health`);
    expect(health.fingerprint).toBe(new X509Certificate(pems.cert).fingerprint256);
  });
});
