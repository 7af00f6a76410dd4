import {
  allocate,
  allocateMany,
  gatewayAddress,
  isAssignable,
  parseInterfaceSubnet,
  poolCapacity,
} from './address-pool.js';
import { intToIp, ipToInt, Ipv4FormatError } from './ipv4.js';

describe('parseInterfaceSubnet', () => {
  test('accepts prefixes /10 through /30', () => {
    expect(parseInterfaceSubnet('10.0.0.0/10').prefix).toBe(10);
    expect(parseInterfaceSubnet('10.8.0.0/30').prefix).toBe(30);
  });

  test.each(['10.0.0.0/9', '10.8.0.0/31', '10.8.0.1/32', '0.0.0.0/0'])('rejects %s', (s) => {
    expect(() => parseInterfaceSubnet(s)).toThrow(Ipv4FormatError);
  });

  test('passes on CIDR syntax errors', () => {
    expect(() => parseInterfaceSubnet('10.8.0.1/24')).toThrow(/host bits/);
  });
});

describe('pool geometry', () => {
  test('gateway is the first host', () => {
    expect(gatewayAddress('10.8.0.0/24')).toBe('10.8.0.1');
  });

  test('capacity excludes network, gateway and broadcast', () => {
    expect(poolCapacity('10.8.0.0/24')).toBe(253);
    expect(poolCapacity('10.8.0.0/30')).toBe(1);
    expect(poolCapacity('10.0.0.0/10')).toBe(2 ** 22 - 3);
  });

  test('isAssignable', () => {
    const s = '10.8.0.0/24';
    expect(isAssignable(s, '10.8.0.0')).toBe(false);
    expect(isAssignable(s, '10.8.0.1')).toBe(false);
    expect(isAssignable(s, '10.8.0.2')).toBe(true);
    expect(isAssignable(s, '10.8.0.254')).toBe(true);
    expect(isAssignable(s, '10.8.0.255')).toBe(false);
    expect(isAssignable(s, '10.8.1.2')).toBe(false);
    expect(isAssignable(s, ipToInt('10.8.0.7'))).toBe(true);
  });
});

describe('allocate', () => {
  const s = '10.8.0.0/24';

  test('starts right after the gateway', () => {
    expect(allocate(s, [])).toBe('10.8.0.2');
  });

  test('never hands out reserved addresses, and returns null when full', () => {
    for (const subnet of ['10.8.0.0/30', '10.8.0.0/29', '10.8.0.0/27']) {
      const used: string[] = [];
      let cursor: string | null = null;
      for (;;) {
        const ip = allocate(subnet, used, { cursor });
        if (ip === null) break;
        expect(isAssignable(subnet, ip)).toBe(true);
        expect(used).not.toContain(ip);
        used.push(ip);
        cursor = ip;
      }
      expect(used).toHaveLength(poolCapacity(subnet));
    }
    expect(allocate('10.8.0.0/30', ['10.8.0.2'])).toBeNull();
  });

  test('without a cursor, continues above the highest address in use', () => {
    expect(allocate(s, ['10.8.0.2', '10.8.0.10'])).toBe('10.8.0.11');
  });

  test('does not reuse a freed address while higher ones are free', () => {
    // .2 and .3 were handed out, then .2 was freed.
    expect(allocate(s, ['10.8.0.3'], { cursor: '10.8.0.3' })).toBe('10.8.0.4');
    // The highest device was deleted too; the cursor still prevents reuse.
    expect(allocate(s, ['10.8.0.2'], { cursor: '10.8.0.3' })).toBe('10.8.0.4');
  });

  test('wraps around to the lowest free address', () => {
    expect(allocate(s, ['10.8.0.2', '10.8.0.4'], { cursor: '10.8.0.254' })).toBe('10.8.0.3');
    const allButOne = Array.from({ length: 253 }, (_, i) => intToIp(ipToInt('10.8.0.2') + i)).filter(
      (ip) => ip !== '10.8.0.100',
    );
    expect(allocate(s, allButOne, { cursor: '10.8.0.200' })).toBe('10.8.0.100');
  });

  test('ignores a cursor and used addresses outside the subnet', () => {
    expect(allocate(s, ['10.9.0.5', '10.8.0.2'], { cursor: '10.9.0.200' })).toBe('10.8.0.3');
  });

  test('accepts integer addresses and integer cursors', () => {
    expect(allocate(s, new Set([ipToInt('10.8.0.2')]), { cursor: ipToInt('10.8.0.50') })).toBe('10.8.0.51');
    expect(allocate(s, Uint32Array.of(ipToInt('10.8.0.2'), ipToInt('10.8.0.3')))).toBe('10.8.0.4');
  });

  test('refuses a corrupt used address instead of ignoring it', () => {
    expect(() => allocate(s, ['10.8.0.x'])).toThrow(Ipv4FormatError);
  });

  // How fast this is: bench/wireguard-libs.js (docs/benchmarks.md), not a test.
  test('finds the free address after the cursor in a /16 holding 60,000 devices, from strings or numbers', () => {
    const subnet = parseInterfaceSubnet('10.20.0.0/16');
    const used = new Set<number>();
    // 60,000 addresses from .2 up are taken but one past the cursor: the first free one after it.
    const free = subnet.network + 2 + 59_000;
    for (let ip = subnet.network + 2; used.size < 60_000; ip++) if (ip !== free) used.add(ip);
    const asStrings = [...used].map(intToIp);
    const cursor = intToIp(subnet.network + 30_000);

    expect(allocate(subnet, asStrings, { cursor })).toBe(intToIp(free));
    expect(allocate(subnet, used, { cursor })).toBe(intToIp(free));
  });
});

describe('allocateMany', () => {
  test('allocates in cursor order across the wrap', () => {
    expect(allocateMany('10.8.0.0/29', ['10.8.0.4'], 3, { cursor: '10.8.0.5' })).toEqual([
      '10.8.0.6',
      '10.8.0.2',
      '10.8.0.3',
    ]);
  });

  test('returns null rather than a partial batch', () => {
    expect(allocateMany('10.8.0.0/29', ['10.8.0.2'], 5)).toBeNull();
    expect(allocateMany('10.8.0.0/29', ['10.8.0.2'], 4)).toHaveLength(4);
  });

  test('zero addresses is an empty batch', () => {
    expect(allocateMany('10.8.0.0/30', ['10.8.0.2'], 0)).toEqual([]);
  });
});
