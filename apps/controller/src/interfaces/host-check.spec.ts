import { startLocalDnsResponder } from '../../../../test/support/dns-responder.js';
import { resolveName, shownResolution } from './host-check.js';

describe('resolveName', () => {
  test('an IP literal is its own answer, in one spelling', async () => {
    expect(await resolveName('203.0.113.5')).toEqual({ addresses: ['203.0.113.5'] });
    expect(await resolveName('2001:DB8:0:0::1')).toEqual({ addresses: ['2001:db8::1'] });
  });

  test('a name is asked of DNS only: localhost is not read from /etc/hosts', async () => {
    const dns = await startLocalDnsResponder({ 'edge.test': '203.0.113.7' });
    try {
      expect(await resolveName('edge.test', [dns.server])).toEqual({ addresses: ['203.0.113.7'] });
      const local = await resolveName('localhost', [dns.server]);
      expect(local.addresses).toEqual([]);
      expect(local.error).toContain('NXDOMAIN');
    } finally {
      await dns.stop();
    }
  });
});

describe('shownResolution', () => {
  const found = { addresses: ['203.0.113.7', '10.0.0.5', 'fd00::1'] };

  test("a name's forbidden addresses are left out and said, unless private targets are allowed", () => {
    expect(shownResolution('edge.test', found, false)).toEqual({
      addresses: ['203.0.113.7'],
      note: 'edge.test resolves to a private address (not shown: settings do not allow private targets)',
    });
    expect(shownResolution('edge.test', found, true)).toEqual({ addresses: found.addresses });
    expect(shownResolution('edge.test', { addresses: ['203.0.113.7'] }, false)).toEqual({
      addresses: ['203.0.113.7'],
    });
  });

  test('an IP literal is printed as written', () => {
    expect(shownResolution('10.0.0.5', { addresses: ['10.0.0.5'] }, false)).toEqual({ addresses: ['10.0.0.5'] });
    expect(shownResolution('[fd00::1]', { addresses: ['fd00::1'] }, false)).toEqual({ addresses: ['fd00::1'] });
  });
});
