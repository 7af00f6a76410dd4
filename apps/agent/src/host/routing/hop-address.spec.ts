import { assertAllowedHopTarget, ForbiddenHopTarget } from './hop-address.js';

describe('assertAllowedHopTarget', () => {
  test('a name resolving to a forbidden address: refused, the name given, not the address (stateError is read by every role)', () => {
    expect(() => assertAllowedHopTarget('db.corp.example', '10.1.2.3', false, [])).toThrow(ForbiddenHopTarget);
    expect(() => assertAllowedHopTarget('db.corp.example', '10.1.2.3', false, [])).toThrow(
      /^hop host db\.corp\.example resolves to a forbidden address: /,
    );
    expect(() => assertAllowedHopTarget('db.corp.example', '10.1.2.3', false, [])).not.toThrow(/10\.1\.2\.3/);
  });

  test('an address given as such is named with its range; private targets allowed, nothing is refused', () => {
    expect(() => assertAllowedHopTarget('192.0.2.7', '192.0.2.7', false, ['192.0.2.7'])).toThrow(
      /^hop address 192\.0\.2\.7 is one of this node's own addresses/,
    );
    expect(() => assertAllowedHopTarget('db.corp.example', '10.1.2.3', true, [])).not.toThrow();
  });
});
