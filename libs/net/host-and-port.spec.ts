import { isHostAndPort } from './host-and-port.js';

describe('isHostAndPort', () => {
  test.each([
    'panel.example.net',
    'panel.example.net:8443',
    'localhost',
    '127.0.0.1:8080',
    '[::1]:8443',
    '[2001:db8::7]',
    'under_score.lan',
    'panel.example.',
  ])('%s passes', (text) => expect(isHostAndPort(text)).toBe(true));

  test.each([
    '',
    'evil;id;#',
    "a'b",
    'a$(id)',
    'a b',
    'a/b',
    'user@host',
    'host:',
    'host:0',
    'host:65536',
    'host:8443:1',
    '-lead.example',
    '[not-ipv6]',
    '[::1',
    'a..b',
    'x'.repeat(64),
    '::1',
  ])('%j is refused', (text) => expect(isHostAndPort(text)).toBe(false));
});
