import { cpuPercent, parseCpuTimes, parseMeminfo, parseNetDev, parseUptime } from './proc.js';
import { hostTotals, transferredBetween } from './network.js';

const STAT = `cpu  18220 0 9192 181281 1062 0 164 198 0 0
cpu0 7455 0 3637 93617 128 0 31 87 0 0
cpu1 10764 0 5555 87664 934 0 132 110 0 0
intr 750073 0 0
ctxt 2103883
`;

const NET_DEV = `Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo:  668775    1478    0    0    0     0          0         0   668775    1478    0    0    0     0       0          0
  eth0:349717811    8909    0    0    0     0          0         0  1114156    7093    0    0    0     0       0          0
   wg0: 1000 10 0 0 0 0 0 0 2000 20 0 0 0 0 0 0
`;

describe('/proc parsers', () => {
  test('cpu: total and idle ticks (iowait counts as idle), cores from the per-CPU lines', () => {
    expect(parseCpuTimes(STAT)).toEqual({
      total: 18220 + 9192 + 181281 + 1062 + 164 + 198,
      idle: 181281 + 1062,
      cores: 2,
    });
  });

  test('cpu percent is the busy share of the ticks between two readings', () => {
    const before = { total: 1000, idle: 800, cores: 2 };
    expect(cpuPercent(before, { total: 1200, idle: 850, cores: 2 })).toBe(75);
    expect(cpuPercent(before, { total: 1200, idle: 1000, cores: 2 })).toBe(0);
    expect(cpuPercent(before, before)).toBeNull();
  });

  test('meminfo in bytes; MemAvailable, or the old estimate without it', () => {
    const modern =
      'MemTotal: 1000 kB\nMemFree: 100 kB\nMemAvailable: 600 kB\nBuffers: 10 kB\nCached: 200 kB\nSwapTotal: 50 kB\nSwapFree: 20 kB\n';
    expect(parseMeminfo(modern)).toEqual({
      memoryTotal: 1024000,
      memoryAvailable: 614400,
      swapTotal: 51200,
      swapFree: 20480,
    });
    const old = 'MemTotal: 1000 kB\nMemFree: 100 kB\nBuffers: 10 kB\nCached: 200 kB\nSwapTotal: 0 kB\nSwapFree: 0 kB\n';
    expect(parseMeminfo(old).memoryAvailable).toBe(310 * 1024);
    expect(() => parseMeminfo('nothing here')).toThrow(/MemTotal/);
  });

  test('net/dev: counters per interface, also when a large counter touches the colon', () => {
    const interfaces = parseNetDev(NET_DEV);
    expect([...interfaces.keys()]).toEqual(['lo', 'eth0', 'wg0']);
    expect(interfaces.get('eth0')).toEqual({ rxBytes: 349717811, txBytes: 1114156 });
    expect(hostTotals(interfaces)).toEqual({ rxBytes: 349717811 + 1000, txBytes: 1114156 + 2000 });
  });

  test('traffic between readings is summed per interface: a recreated or new interface counts from zero, a gone one not at all', () => {
    const before = new Map([
      ['lo', { rxBytes: 0, txBytes: 0 }],
      ['eth0', { rxBytes: 1000, txBytes: 500 }],
      ['wg0', { rxBytes: 9000, txBytes: 9000 }],
      ['wg1', { rxBytes: 7, txBytes: 7 }],
    ]);
    const after = new Map([
      ['lo', { rxBytes: 5000, txBytes: 5000 }],
      ['eth0', { rxBytes: 1600, txBytes: 700 }],
      ['wg0', { rxBytes: 30, txBytes: 40 }],
      ['wg2', { rxBytes: 1, txBytes: 2 }],
    ]);
    expect(transferredBetween(before, after)).toEqual({ rxBytes: 600 + 30 + 1, txBytes: 200 + 40 + 2 });
  });

  test('uptime is the first number', () => {
    expect(parseUptime('1059.37 1812.81\n')).toBe(1059.37);
    expect(() => parseUptime('')).toThrow();
  });
});
