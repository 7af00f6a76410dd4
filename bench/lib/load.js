import autocannon from 'autocannon';

/**
 * One load run against one URL: a warm-up whose figures are thrown away, then the measured run.
 * `onMeasuring` fires between the two so the caller can start its own CPU accounting.
 */
export async function runLoad(
  { url, headers = {}, connections, pipelining, warmupSeconds, durationSeconds },
  onMeasuring = () => {},
) {
  const base = { url, headers, connections, pipelining, method: 'GET' };
  let warmup;
  if (warmupSeconds > 0) warmup = await autocannon({ ...base, duration: warmupSeconds });
  onMeasuring();
  const cpuBefore = process.cpuUsage();
  // autocannon's own latency histogram is whole milliseconds, too coarse for a sub-millisecond
  // handler; its per-response time is a float, so keep those and take percentiles ourselves.
  const latencies = new LatencyLog();
  const instance = autocannon({ ...base, duration: durationSeconds });
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    if (statusCode >= 200 && statusCode < 300) latencies.add(responseTime);
  });
  const measured = await instance;
  const cpu = process.cpuUsage(cpuBefore);
  return {
    warmup: warmup && summarise(warmup),
    measured: { ...summarise(measured), latency: latencies.summary() },
    clientCpuMicros: cpu.user + cpu.system,
  };
}

class LatencyLog {
  values = new Float64Array(1 << 16);
  length = 0;

  add(ms) {
    if (this.length === this.values.length) {
      const bigger = new Float64Array(this.values.length * 2);
      bigger.set(this.values);
      this.values = bigger;
    }
    this.values[this.length++] = ms;
  }

  summary() {
    const sorted = this.values.subarray(0, this.length).sort();
    const at = (q) =>
      sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] : undefined;
    let sum = 0;
    for (const v of sorted) sum += v;
    return {
      count: sorted.length,
      mean: sorted.length ? sum / sorted.length : undefined,
      p50: at(0.5),
      p90: at(0.9),
      p99: at(0.99),
      max: at(1),
    };
  }
}

/** The few figures the report needs, plus every counter that means "not a clean 2xx". */
function summarise(result) {
  return {
    requestsPerSecond: result.requests.average,
    requestsPerSecondStddev: result.requests.stddev,
    total: result.requests.total,
    latency: {
      mean: result.latency.mean,
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
    },
    durationSeconds: result.duration,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    resets: result.resets,
    statusCodeStats: result.statusCodeStats,
  };
}
