// A Jest reporter: after the run, every test file's duration (slowest first) and the run's total,
// so CI's output shows where the time goes (docs/testing.md records the totals).
import { relative } from 'node:path';

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

export default class DurationsReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
    this.files = [];
  }

  onRunStart() {
    this.startedAt = Date.now();
  }

  onTestResult(test, result) {
    const { start, end } = result.perfStats;
    this.files.push({
      path: relative(this.rootDir, test.path),
      ms: end - start,
      outcome: result.testExecError || result.numFailingTests > 0 ? 'FAIL' : 'pass',
    });
  }

  onRunComplete() {
    if (this.files.length === 0) return;
    const total = Date.now() - this.startedAt;
    const summed = this.files.reduce((sum, file) => sum + file.ms, 0);
    const lines = [...this.files]
      .sort((a, b) => b.ms - a.ms)
      .map((file) => `  ${seconds(file.ms).padStart(8)}  ${file.outcome}  ${file.path}`);
    process.stdout.write(
      [
        '',
        `test durations (${this.files.length} files, slowest first):`,
        ...lines,
        `  total ${seconds(total)} (${(total / 60_000).toFixed(1)} min) wall clock, ${seconds(summed)} in test files`,
        '',
      ].join('\n'),
    );
  }
}
