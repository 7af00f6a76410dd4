import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { systemSampleSchema, type SystemSample } from '#libs/contracts/system.js';
import { waitFor } from '../../test/support/wait-for.js';
import { createSampler } from './sampler.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Keeps one core busy for `ms` in a worker thread (the test's own thread stays free to sample). */
function burnCpu(ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(
      `const end = Date.now() + ${ms}; let x = 0; while (Date.now() < end) x += Math.sqrt(x + 1);`,
      { eval: true },
    );
    worker.once('error', reject);
    worker.once('exit', () => resolve());
  });
}

function expectUsage(usage: SystemSample['memory']) {
  expect(usage.used).toBeGreaterThanOrEqual(0);
  expect(usage.used).toBeLessThanOrEqual(usage.total);
  expect(usage.percent).toBeCloseTo(usage.total > 0 ? (usage.used / usage.total) * 100 : 0, 6);
}

describe('createSampler on this host', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'warren-sampler-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('a sample passes the contract and its values are in range', async () => {
    const before = Date.now();
    const sample = await createSampler({ diskPath: dir }).sample();
    expect(systemSampleSchema.parse(sample)).toEqual(sample);
    expect(sample.at).toBeGreaterThanOrEqual(before);
    expect(sample.at).toBeLessThanOrEqual(Date.now());
    expect(sample.cpu.cores).toBeGreaterThanOrEqual(1);
    expect(sample.cpu.percent).toBeGreaterThanOrEqual(0);
    expect(sample.cpu.percent).toBeLessThanOrEqual(100);
    expect(sample.memory.total).toBeGreaterThan(0);
    expect(sample.memory.used).toBeGreaterThan(0);
    expectUsage(sample.memory);
    expectUsage(sample.swap);
    expect(sample.disk.total).toBeGreaterThan(0);
    expectUsage(sample.disk);
    expect(sample.uptimeSeconds).toBeGreaterThan(0);
    expect(sample.processRss).toBeGreaterThan(10 * 1024 * 1024);
    expect(sample.processRss).toBeLessThan(sample.memory.total);
    // The first sample has nothing to take a rate against.
    expect(sample.network.rxRate).toBe(0);
    expect(sample.network.txRate).toBe(0);
  });

  test('a path that does not exist yet is measured on the filesystem it would be created on', async () => {
    const here = await createSampler({ diskPath: dir }).sample();
    const later = await createSampler({ diskPath: join(dir, 'not', 'yet') }).sample();
    expect(later.disk.total).toBe(here.disk.total);
  });

  test('rates come from the previous sample: bytes moved over the seconds between them', async () => {
    const sampler = createSampler({ diskPath: dir });
    const first = await sampler.sample();
    await sleep(500);
    const second = await sampler.sample();
    const seconds = (second.at - first.at) / 1000;
    expect(seconds).toBeGreaterThan(0.4);
    expect(second.network.rxBytes).toBeGreaterThanOrEqual(first.network.rxBytes);
    expect(second.network.txBytes).toBeGreaterThanOrEqual(first.network.txBytes);
    expect(second.network.rxRate * seconds).toBeCloseTo(second.network.rxBytes - first.network.rxBytes, 3);
    expect(second.network.txRate * seconds).toBeCloseTo(second.network.txBytes - first.network.txBytes, 3);
    expect(second.uptimeSeconds).toBeGreaterThan(first.uptimeSeconds);
  });

  test('cpu percent rises while a worker burns a core for a second', async () => {
    const sampler = createSampler({ diskPath: dir });
    await sampler.sample();
    await burnCpu(1000);
    const busy = await sampler.sample();
    // One busy core of `cores`; at least 60% of that share, so other load cannot make it flaky.
    expect(busy.cpu.percent).toBeGreaterThanOrEqual((0.6 * 100) / busy.cpu.cores);
  });

  test('overlapping calls are taken one after the other, each against the one before', async () => {
    // A procfs of the test's own whose `stat` is a FIFO: a call's read of it waits until the test
    // writes a reading, so the test decides what each call reads and sees when each one reads.
    const proc = mkdtempSync(join(dir, 'proc-'));
    mkdirSync(join(proc, 'net'));
    writeFileSync(join(proc, 'meminfo'), 'MemTotal: 1000 kB\nMemAvailable: 500 kB\nSwapTotal: 0 kB\nSwapFree: 0 kB\n');
    writeFileSync(join(proc, 'net', 'dev'), 'Inter-|\n face |\n');
    writeFileSync(join(proc, 'uptime'), '100.00 50.00\n');
    execFileSync('mkfifo', [join(proc, 'stat')]);
    const sampler = createSampler({ diskPath: dir, procDir: proc });
    const calls = [sampler.sample(), sampler.sample(), sampler.sample()];
    // Three readings: 10% busy since boot, then 50% and 25% busy between one and the next.
    const readings = ['cpu 100 0 0 900\n', 'cpu 600 0 0 1400\n', 'cpu 850 0 0 2150\n'];
    const answered: number[] = [];
    calls.forEach((call, i) => void call.then(() => answered.push(i)));
    for (const [i, reading] of readings.entries()) {
      // Written once a call has the FIFO open (ENXIO until then); the call ends reading at its close.
      const fd = await waitFor(`call ${i} reading stat`, async () => {
        try {
          return openSync(join(proc, 'stat'), constants.O_WRONLY | constants.O_NONBLOCK);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENXIO') return undefined;
          throw error;
        }
      });
      writeSync(fd, reading);
      closeSync(fd);
      await calls[i];
      // The later calls had not answered: they wait for this one, which read only this reading.
      expect(answered).toEqual(Array.from({ length: i + 1 }, (_, n) => n));
    }
    const samples = await Promise.all(calls);
    expect(samples.map((sample) => sample.cpu.percent)).toEqual([10, 50, 25]);
    for (const sample of samples) expect(systemSampleSchema.safeParse(sample).success).toBe(true);
  });
});
