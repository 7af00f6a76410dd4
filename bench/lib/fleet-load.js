// The load process of bench/agent-fleet.js: N simulated agents, each one WebSocket to the
// controller's agent link, in this one process (its own event loop, so the bench's bookkeeping
// does not delay it). Driven over IPC by the parent:
//   {type:'start', url, intervalMs, links:[{credential, ifname, keys, appliedRevision, url?, nodeId?, queue?}]}
//        (a link's own url: another controller; with nodeId and queue, the enrolment's QueueAccess, the link
//        also takes its node's jobs as the agent's worker does: see answerJobs) → {type:'connected', ms, welcomes}
//   {type:'mode', mode:'heartbeat'|'full'}   switches what every link sends each interval
//   {type:'mark'}                            starts a measurement window → {type:'marked'}
//   {type:'report'}                          ends it → {type:'report', stats}
//   {type:'drain'}                           stops sending, waits for every pending ack → {type:'drained', totals}
//   {type:'close'}                           closes the links and exits
// Each link behaves like apps/agent: hello, then per interval a counter batch (a new one when the
// last was acknowledged, else the pending one again, as the agent's spool does) and a system sample.
// A link given its queue access answers its node's jobs through the agent's own worker
// (apps/agent/src/work/apply-worker.ts, from dist): an apply as applied at once (the interfaces
// up, `applied` sent over the link), a node probe with host facts; nothing touches the host.
import WebSocket from 'ws';

let links = [];
let mode = 'heartbeat';
let intervalMs = 2000;
let window;
let draining = false;
let fatal;

function newWindow() {
  const cpu = process.cpuUsage();
  return {
    startedAt: performance.now(),
    cpu,
    ackMs: [],
    ackAt: [],
    slow: [],
    batches: 0,
    resends: 0,
    systems: 0,
    heartbeats: 0,
    errors: 0,
    errorTexts: new Map(),
    peers: 0,
    late: 0,
  };
}

/** Jobs the links' workers answered (and failed) since the start, by name; worker errors. */
const jobs = { answered: {}, failed: {}, workerErrors: 0, workerErrorTexts: new Map() };
const count = (table, name) => (table[name] = (table[name] ?? 0) + 1);

/** What the agent's apply returns for a state it matched at once: every interface up with its peers. */
function appliedResult(state) {
  return {
    revision: state.revision,
    ok: true,
    interfaces: (state.interfaces ?? []).map((i) => ({
      name: i.name,
      state: 'up',
      driver: 'kernel',
      peers: i.peers?.length ?? 0,
    })),
    durationMs: 1,
  };
}

/** A node probe's answer (libs/contracts/node-probe.ts) from a host that is not there. */
function probeAnswer(link, version) {
  return {
    agentVersion: version,
    answeredAt: Date.now(),
    host: {
      kernel: '6.8.0-bench',
      os: 'Bench Linux',
      arch: 'x64',
      hostname: `fleet-${link.index}`,
      cpus: link.system.cores,
      memoryTotalBytes: link.system.memTotal,
      memoryAvailableBytes: Math.round(link.system.memTotal - link.system.mem),
      uptimeSeconds: Math.round((Date.now() - link.system.bootedAt) / 1000),
      load: [0.2, 0.15, 0.1],
    },
    wireguard: {
      implementation: 'kernel',
      kernelModule: null,
      tools: 'wireguard-tools v1.0.20210914',
      wireguardGo: null,
    },
    nft: 'nftables v1.0.9',
  };
}

/** The agent's worker on the link's node queue (its Redis user, EVALSHA only), answering as above. */
async function startWorker(link, spec) {
  const [{ ApplyWorker }, { NODE_PROBE_JOB }, { WARREN_VERSION }] = await Promise.all([
    import('../../dist/apps/agent/src/work/apply-worker.js'),
    import('../../dist/libs/contracts/node-probe.js'),
    import('../../dist/libs/version/warren-version.js'),
  ]);
  const onError = (error) => {
    jobs.workerErrors++;
    const text = String(error?.message ?? error).slice(0, 200);
    jobs.workerErrorTexts.set(text, (jobs.workerErrorTexts.get(text) ?? 0) + 1);
  };
  link.worker = new ApplyWorker(spec.nodeId, spec.queue, undefined, onError);
  const answering = (name, answer) => async (job) => {
    try {
      const value = await answer(job);
      count(jobs.answered, name);
      return value;
    } catch (error) {
      count(jobs.failed, name);
      throw error;
    }
  };
  link.worker.start(
    answering('apply', async (job) => {
      // As the agent: an older job than what is applied answers with the newer revision.
      link.appliedRevision = Math.max(link.appliedRevision, job.data.revision);
      const result = { ...appliedResult(job.data), revision: link.appliedRevision };
      send(link, { type: 'applied', result });
      return result;
    }),
    { [NODE_PROBE_JOB]: answering(NODE_PROBE_JOB, async () => probeAnswer(link, WARREN_VERSION)) },
  );
}

function rand(min, max) {
  return min + Math.random() * (max - min);
}

/** A SystemSample as an agent's sampler makes one (libs/contracts/system.ts), drifting a little. */
function systemSample(link, now) {
  const s = link.system;
  s.cpu = Math.min(100, Math.max(0, s.cpu + rand(-3, 3)));
  const rxRate = rand(2e5, 5e6);
  const txRate = rand(2e5, 5e6);
  s.rx += (rxRate * intervalMs) / 1000;
  s.tx += (txRate * intervalMs) / 1000;
  s.mem = Math.min(s.memTotal, Math.max(0, s.mem + rand(-2e6, 2e6)));
  const load = (s.cpu / 100) * s.cores;
  return {
    at: now,
    cpu: {
      percent: Math.round(s.cpu * 10) / 10,
      cores: s.cores,
      load1: Math.round(load * 100) / 100,
      load5: Math.round(load * 90) / 100,
      load15: Math.round(load * 80) / 100,
    },
    memory: { used: Math.round(s.mem), total: s.memTotal, percent: Math.round((1000 * s.mem) / s.memTotal) / 10 },
    swap: { used: 0, total: 1073741824, percent: 0 },
    disk: { used: 8.4e9, total: 3.2e10, percent: 26.3 },
    network: {
      rxBytes: Math.round(s.rx),
      txBytes: Math.round(s.tx),
      rxRate: Math.round(rxRate),
      txRate: Math.round(txRate),
    },
    uptimeSeconds: Math.round((now - s.bootedAt) / 1000),
    processRss: Math.round(rand(58e6, 62e6)),
  };
}

function counterBatch(link, now) {
  let bytes = 0;
  const peers = link.keys.map((publicKey, i) => {
    // Small deltas: a peer or two idle, most a few hundred KB per 2 s.
    const idle = (i + link.seq) % 17 === 0;
    const rxBytes = idle ? 0 : Math.floor(rand(1_000, 200_000));
    const txBytes = idle ? 0 : Math.floor(rand(5_000, 1_000_000));
    bytes += rxBytes + txBytes;
    return {
      interface: link.ifname,
      publicKey,
      rxBytes,
      txBytes,
      lastHandshake: idle ? null : now - Math.floor(rand(0, 120_000)),
      endpoint: idle ? null : `203.0.113.${(i % 250) + 1}:${40000 + i}`,
    };
  });
  // The agent's previous reading (one per interval): the controller's current rate per peer.
  const since = link.readAt;
  link.readAt = now;
  return { seq: ++link.seq, at: now, ...(since === undefined ? {} : { since }), peers, bytes };
}

function send(link, message) {
  if (link.ws.readyState === WebSocket.OPEN) link.ws.send(JSON.stringify(message));
}

function tick(link) {
  if (draining || link.ws.readyState !== WebSocket.OPEN) return;
  const now = Date.now();
  if (mode === 'heartbeat') {
    send(link, { type: 'heartbeat', at: now });
    if (window) window.heartbeats++;
    return;
  }
  if (link.pending) {
    // Not acknowledged within an interval: the agent sends the same batch again.
    if (window) {
      window.resends++;
      window.late++;
    }
  } else {
    link.pending = counterBatch(link, now);
    link.pending.sentAt = performance.now();
    if (window) {
      window.batches++;
      window.peers += link.pending.peers.length;
    }
  }
  const { seq, at, since, peers } = link.pending;
  send(link, { type: 'counters', seq, at, since, peers });
  send(link, { type: 'system', sample: systemSample(link, now) });
  if (window) window.systems++;
}

function onMessage(link, data) {
  let message;
  try {
    message = JSON.parse(String(data));
  } catch {
    return;
  }
  if (message.type === 'welcome') {
    link.seq = Math.max(link.seq, message.countersSeq);
    link.welcome?.(message);
  } else if (message.type === 'ack') {
    if (link.pending && message.seq === link.pending.seq) {
      const ms = performance.now() - link.pending.sentAt;
      if (window && link.pending.sentAt >= window.startedAt) {
        window.ackMs.push(ms);
        window.ackAt.push(performance.now() - window.startedAt);
        if (ms > 250) window.slow.push({ sentAt: Date.now() - ms, ms, link: link.index });
      }
      link.ackedBytes += link.pending.bytes;
      link.acked++;
      link.pending = undefined;
      if (draining) checkDrained();
    }
  } else if (message.type === 'error') {
    if (window) {
      window.errors++;
      window.errorTexts.set(message.error, (window.errorTexts.get(message.error) ?? 0) + 1);
    }
  }
}

function connect(url, spec, index) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, {
      headers: { authorization: `Bearer ${spec.credential}` },
      perMessageDeflate: false,
    });
    const link = {
      index,
      ws,
      ifname: spec.ifname,
      keys: spec.keys,
      appliedRevision: spec.appliedRevision ?? 0,
      seq: 0,
      pending: undefined,
      acked: 0,
      ackedBytes: 0,
      system: {
        cpu: rand(5, 30),
        cores: 2,
        mem: rand(4e8, 9e8),
        memTotal: 2 * 2 ** 30,
        rx: rand(1e9, 1e11),
        tx: rand(1e9, 1e11),
        bootedAt: Date.now() - rand(1e6, 1e8),
      },
    };
    const timer = setTimeout(() => reject(new Error(`link ${index}: no welcome within 30 s`)), 30_000);
    link.welcome = () => {
      clearTimeout(timer);
      link.welcome = undefined;
      resolve(link);
    };
    ws.on('open', () =>
      send(link, {
        type: 'hello',
        version: 'bench-fleet',
        capabilities: { root: true, wireguardKernel: true, wireguardGo: false, wg: true, nft: true, ip: true },
        gaps: [],
        appliedRevision: spec.appliedRevision,
      }),
    );
    ws.on('message', (data) => onMessage(link, data));
    ws.on('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`link ${index}: ${error.message}`));
    });
    ws.on('close', (code, reason) => {
      if (!draining && !closing) fatal ??= `link ${index} closed by the controller (${code} ${reason})`;
    });
  });
}

let closing = false;
let drainResolve;
function checkDrained() {
  if (drainResolve && links.every((l) => !l.pending)) {
    drainResolve();
    drainResolve = undefined;
  }
}

function summary(values) {
  const sorted = Float64Array.from(values).sort();
  const at = (q) =>
    sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] : null;
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    count: sorted.length,
    mean: sorted.length ? sum / sorted.length : null,
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    max: at(1),
  };
}

process.on('message', async (message) => {
  try {
    if (message.type === 'start') {
      intervalMs = message.intervalMs;
      const started = performance.now();
      // Connect in groups, as a fleet coming back after a controller restart would (not all at one instant).
      for (let i = 0; i < message.links.length; i += 20) {
        links.push(
          ...(await Promise.all(
            message.links.slice(i, i + 20).map((spec, j) => connect(spec.url ?? message.url, spec, i + j)),
          )),
        );
      }
      for (const [i, spec] of message.links.entries()) if (spec.queue) await startWorker(links[i], spec);
      const ms = performance.now() - started;
      // Every link reports on its own timer, spread evenly over one interval.
      links.forEach((link, i) => {
        link.startTimer = setTimeout(
          () => {
            tick(link);
            link.timer = setInterval(() => tick(link), intervalMs);
          },
          (i * intervalMs) / links.length,
        );
      });
      process.send({ type: 'connected', ms });
    } else if (message.type === 'mode') {
      mode = message.mode;
    } else if (message.type === 'mark') {
      window = newWindow();
      process.send({ type: 'marked' });
    } else if (message.type === 'report') {
      const w = window;
      window = undefined;
      const cpu = process.cpuUsage(w.cpu);
      process.send({
        type: 'report',
        stats: {
          seconds: (performance.now() - w.startedAt) / 1000,
          ack: summary(w.ackMs),
          // Acks by when they arrived, in slices of the window: does latency drift as it runs?
          slices: Array.from({ length: Math.ceil((performance.now() - w.startedAt) / message.sliceMs) }, (_, k) =>
            summary(
              w.ackMs.filter((_, i) => w.ackAt[i] >= k * message.sliceMs && w.ackAt[i] < (k + 1) * message.sliceMs),
            ),
          ),
          slow: w.slow,
          batches: w.batches,
          resends: w.resends,
          systems: w.systems,
          heartbeats: w.heartbeats,
          peers: w.peers,
          errors: w.errors,
          errorTexts: [...w.errorTexts.entries()].slice(0, 5),
          cpuMs: (cpu.user + cpu.system) / 1000,
          open: links.filter((l) => l.ws.readyState === WebSocket.OPEN).length,
          fatal,
          jobs: { ...jobs, workerErrorTexts: [...jobs.workerErrorTexts.entries()].slice(0, 5) },
        },
      });
    } else if (message.type === 'drain') {
      draining = true;
      for (const link of links) {
        clearTimeout(link.startTimer);
        clearInterval(link.timer);
      }
      const timeout = new Promise((resolve) => setTimeout(() => resolve('timeout'), 30_000));
      const done = new Promise((resolve) => {
        drainResolve = resolve;
        checkDrained();
      });
      const outcome = await Promise.race([done, timeout]);
      process.send({
        type: 'drained',
        totals: {
          timedOut: outcome === 'timeout',
          unacked: links.filter((l) => l.pending).length,
          batches: links.reduce((s, l) => s + l.acked, 0),
          bytes: links.reduce((s, l) => s + l.ackedBytes, 0),
        },
      });
    } else if (message.type === 'close') {
      closing = true;
      await Promise.all(links.map((link) => link.worker?.stop()));
      for (const link of links) link.ws.close(1000, 'bench done');
      setTimeout(() => process.exit(0), 500);
    }
  } catch (error) {
    process.send({ type: 'error', message: error?.stack ?? String(error) });
  }
});
process.on('disconnect', () => process.exit(0));
