import { parseWgDump } from './counters.js';

const K1 = 'REC91fHjgI0TqhrtmSw9kGcpSJTV5FU+McJx5R++MDw=';
const K2 = 'fUXPFYL2icvbzI0y7vBiFaQWJAX9oEUevJY06O0LMgA=';
const K3 = 'FsBfQijHC2plGDP1pT5NBW2P41muGh2PKsXhB/rnclQ=';
const PRIV = 'UKsGZ1uMOITrPqhCtvIthLbVs2bt3ZxkUswAlNIh8U8=';

const dump = [
  `wg0\t${PRIV}\t${K3}\t51820\toff`,
  `wg0\t${K1}\t(none)\t198.51.100.7:40123\t10.8.0.2/32\t1700000000\t9007199254740991\t42\toff`,
  `wg0\t${K2}\t${K3}\t(none)\t10.8.0.3/32\t0\t0\t0\t25`,
  `other\t${PRIV}\t${K3}\t51821\toff`,
  `other\t${K3}\t(none)\t[2001:db8::1]:51820\t10.9.0.2/32\t1700000001\t1\t2\toff`,
  '',
].join('\n');

test('peer lines become readings; interface lines are skipped; only wanted interfaces are kept', () => {
  expect(parseWgDump(dump, (name) => name === 'wg0')).toEqual([
    {
      interface: 'wg0',
      publicKey: K1,
      rxBytes: 9007199254740991,
      txBytes: 42,
      lastHandshake: 1700000000000,
      endpoint: '198.51.100.7:40123',
    },
    { interface: 'wg0', publicKey: K2, rxBytes: 0, txBytes: 0, lastHandshake: null, endpoint: null },
  ]);
});

test('IPv6 endpoints, a missing final newline and an empty dump', () => {
  const readings = parseWgDump(dump.trimEnd(), () => true);
  expect(readings).toHaveLength(3);
  expect(readings[2]).toEqual({
    interface: 'other',
    publicKey: K3,
    rxBytes: 1,
    txBytes: 2,
    lastHandshake: 1700000001000,
    endpoint: '[2001:db8::1]:51820',
  });
  expect(parseWgDump('', () => true)).toEqual([]);
});

test('asks about each interface once, not once per peer', () => {
  const asked: string[] = [];
  parseWgDump(dump, (name) => (asked.push(name), true));
  expect(asked).toEqual(['wg0', 'other']);
});
