import { Writable } from 'node:stream';
import { generateApiToken, generatePrefixedSecret } from '../tokens/api-token.js';
import { generateKeyPair } from '../wireguard/keys.js';
import { createLogger } from './logger.js';
import { withLogContext } from './log-context.js';
import { scrubText } from './redact.js';

describe('scrubText', () => {
  test('the panel’s token kinds, bearer and basic credentials, URL passwords, key = value secrets, PEM keys', () => {
    const token = generateApiToken();
    const enrolment = generatePrefixedSecret('wne_');
    const key = generateKeyPair().privateKey;
    const text = [
      `token ${token} refused`,
      `enrol with ${enrolment}`,
      'Authorization: Bearer abc.def-123',
      'redis://agent:s3cr3t-pass@10.0.0.1:6379',
      `PrivateKey = ${key}`,
      `{"password":"hunter2-long","presharedKey": "${key}"}`,
      '-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----',
    ].join('\n');
    const scrubbed = scrubText(text);
    for (const secret of [
      token.slice(4),
      enrolment.slice(4),
      'abc.def-123',
      's3cr3t-pass',
      key,
      'hunter2-long',
      'MIIB',
    ])
      expect(scrubbed).not.toContain(secret);
    expect(scrubbed).toContain('wrn_[redacted]');
    expect(scrubbed).toContain('redis://agent:[redacted]@10.0.0.1:6379');
  });

  test('ordinary text is left alone', () => {
    const text = 'node 5c1d… applied revision 12 in 40 ms; public key bm9ub25l…';
    expect(scrubText(text)).toBe(text);
  });
});

describe('createLogger', () => {
  function capture() {
    const lines: Record<string, unknown>[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    });
    return { lines, logger: createLogger({ name: 'test', level: 'debug', destination }) };
  }

  test('secret fields are redacted by name; messages and errors are scrubbed; the context is added', async () => {
    const { lines, logger } = capture();
    const token = generateApiToken();
    withLogContext({ reqId: 'r-1' }, () => {
      logger.info({ password: 'pw-123456', headers: { authorization: `Bearer ${token}` } }, `got ${token}`);
      logger.error({ err: new Error(`connect redis://u:pw-654321@host failed`) }, 'failed');
    });
    await new Promise((resolve) => setImmediate(resolve));
    const text = JSON.stringify(lines);
    for (const secret of [token.slice(4), 'pw-123456', 'pw-654321']) expect(text).not.toContain(secret);
    expect(lines[0]).toMatchObject({ reqId: 'r-1', password: '[redacted]', name: 'test' });
  });
});
