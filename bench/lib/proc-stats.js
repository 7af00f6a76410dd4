import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { machineCpuTicks } from './machine.js';

let clockTicks;
export function ticksPerSecond() {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

function statFields(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** CPU time (user + system) a process has used so far, in milliseconds. */
export function cpuMsOf(pid) {
  const hz = ticksPerSecond();
  const fields = statFields(pid);
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / hz;
}

/** CPU time of the waited-for children of a process (cutime + cstime), in milliseconds. */
export function childrenCpuMsOf(pid) {
  // The clock rate first: the first call asks getconf, a child whose CPU must not land in the reading.
  const hz = ticksPerSecond();
  const fields = statFields(pid);
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / hz;
}

/** The command line of a process, '' when it is gone. */
export function cmdlineOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

/** Pids whose parent is `pid`. */
export function childPids(pid) {
  const out = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (Number(statFields(name)[1]) === pid) out.push(Number(name));
    } catch {
      // gone
    }
  }
  return out;
}

/** VmRSS and VmHWM (peak) of a process, in MiB. */
export function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field) => Number(status.match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'))?.[1]);
  return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
}

/**
 * CPU time (ms) of every process whose command line matches, summed: e.g. all PostgreSQL
 * backends. Processes that end between two readings take their time with them, so a sum over a
 * window is a lower bound when backends come and go (pools keep theirs open).
 */
export function cpuMsOfProcesses(match) {
  const byPid = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (!match(cmdline, Number(name))) continue;
      byPid.set(Number(name), cpuMsOf(name));
    } catch {
      // gone meanwhile
    }
  }
  return byPid;
}

/**
 * CPU of a changing set of processes over a window, seen at several moments: a process gone
 * before the window's end (a pooled connection closed while idle) still counts what it spent
 * until last seen, which a difference of the first and last moments alone would drop. Each
 * process counts from its CPU at the start (0 for one born in the window) to its CPU last seen;
 * a pid whose CPU went down is a new process under a reused pid: the old one's share is kept
 * and the new one counts from 0.
 */
export function cpuTrail(start) {
  const last = new Map();
  const from = new Map(start);
  let retired = 0;
  return {
    see(now) {
      for (const [pid, ms] of now) {
        const before = last.get(pid) ?? from.get(pid);
        if (before !== undefined && ms < before) {
          retired += (last.get(pid) ?? before) - (from.get(pid) ?? 0);
          from.set(pid, 0);
        }
        last.set(pid, ms);
      }
    },
    total() {
      let sum = retired;
      for (const [pid, ms] of last) sum += ms - (from.get(pid) ?? 0);
      return sum;
    },
  };
}

/** Sum over pids present in both readings (ms); pids only in `after` count from 0. */
export function cpuDelta(before, after) {
  let sum = 0;
  for (const [pid, ms] of after) sum += ms - (before.get(pid) ?? 0);
  return sum;
}

export const percentile = (sorted, q) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] : undefined;

/** p50/p90/p99/max/mean of a list of numbers. */
export function summarise(values) {
  const sorted = Float64Array.from(values).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    count: sorted.length,
    mean: sorted.length ? sum / sorted.length : undefined,
    min: sorted[0],
    p50: percentile(sorted, 0.5),
    p90: percentile(sorted, 0.9),
    p99: percentile(sorted, 0.99),
    max: percentile(sorted, 1),
  };
}

/** Busy per cent of one core over the whole machine between two machineCpuTicks() readings. */
export function machineBusyPercent(before, after) {
  if (!before || !after || after.total === before.total) return undefined;
  return (100 * cpus().length * (after.busy - before.busy)) / (after.total - before.total);
}

/** How busy the machine is before the bench starts anything (other work on the box), over `ms`. */
export async function backgroundBusy(ms = 3000) {
  const before = machineCpuTicks();
  await new Promise((resolve) => setTimeout(resolve, ms));
  return machineBusyPercent(before, machineCpuTicks());
}

/** CPU time (ms) of every process now, with a short name: for "who else used the machine". */
export function allProcessesCpu() {
  const out = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ms = ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond();
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      out.set(Number(name), { ms, cmdline: cmdline || stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/**
 * The biggest CPU users between two allProcessesCpu() readings that are not in `exclude` (pids),
 * grouped by a short form of their command line: [label, per cent of one core].
 */
export function topOthers(before, after, elapsedMs, exclude, count = 3) {
  const byLabel = new Map();
  for (const [pid, now] of after) {
    if (exclude.has(pid)) continue;
    const used = now.ms - (before.get(pid)?.ms ?? 0);
    if (used <= 0) continue;
    const label = shortCommand(now.cmdline);
    byLabel.set(label, (byLabel.get(label) ?? 0) + used);
  }
  return [...byLabel.entries()]
    .map(([label, ms]) => [label, (100 * ms) / elapsedMs])
    .filter(([, share]) => share >= 1)
    .sort((a, b) => b[1] - a[1])
    .slice(0, count);
}

function shortCommand(cmdline) {
  const words = cmdline.split(' ').filter(Boolean);
  const program = (words[0] ?? '?').split('/').pop();
  const script = words.slice(1).find((w) => /\.(c?m?js|ts)$/.test(w) || w.includes('jest') || w.includes('tsc'));
  return script ? `${program} ${script.split('/').slice(-3).join('/')}` : program;
}

/**
 * Time a process's main thread (its event loop, for Node) has spent runnable but waiting for a
 * core so far, in ms (/proc/<pid>/schedstat: on-CPU ns, run-queue wait ns, slices); undefined
 * where the kernel does not keep it. Over a window, wait ÷ elapsed is how much of it the
 * process was held up by other work on the machine rather than by its own.
 */
export function runQueueWaitMsOf(pid) {
  try {
    const wait = Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').trim().split(/\s+/)[1]);
    return Number.isFinite(wait) ? wait / 1e6 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The machine's CPU pressure so far (/proc/pressure/cpu, "some": time in which at least one
 * runnable task waited for a core), in ms; undefined without PSI. Over a window, its increase ÷
 * elapsed is the share of the window the machine had more runnable work than cores.
 */
export function cpuPressureMs() {
  try {
    const some = readFileSync('/proc/pressure/cpu', 'utf8').match(/^some .*total=(\d+)/m);
    return some ? Number(some[1]) / 1000 : undefined;
  } catch {
    return undefined;
  }
}
