import { natRuleProblem, renderNatRuleset } from './nat.js';

test('one transaction: make sure the table exists, delete it, create it with the rules', () => {
  expect(
    renderNatRuleset('warren', [
      { subnet: '10.8.0.0/24', outInterface: 'eth0' },
      { subnet: '10.9.0.0/16', outInterface: 'ens3' },
    ]),
  ).toBe(
    [
      'table ip warren {}',
      'delete table ip warren',
      'table ip warren {',
      '\tchain postrouting {',
      '\t\ttype nat hook postrouting priority srcnat; policy accept;',
      '\t\tip saddr 10.8.0.0/24 oifname "eth0" masquerade',
      '\t\tip saddr 10.9.0.0/16 oifname "ens3" masquerade',
      '\t}',
      '}',
      '',
    ].join('\n'),
  );
});

test('no rules: the table is removed (and removing an absent table is not an error)', () => {
  expect(renderNatRuleset('warren', [])).toBe('table ip warren {}\ndelete table ip warren\n');
});

test('values nft would misread are refused before they reach a ruleset', () => {
  expect(natRuleProblem({ subnet: '10.8.0.0/24', outInterface: 'eth0' })).toBeNull();
  expect(natRuleProblem({ subnet: '10.8.0.0/24', outInterface: 'eth0.100' })).toBeNull();
  expect(natRuleProblem({ subnet: '10.8.0.1/24', outInterface: 'eth0' })).toMatch(/host bits/);
  expect(natRuleProblem({ subnet: '300.8.0.0/24', outInterface: 'eth0' })).toMatch(/NAT subnet/);
  expect(natRuleProblem({ subnet: '10.8.0.0/24', outInterface: 'eth0" accept #' })).toMatch(/not an interface name/);
});
