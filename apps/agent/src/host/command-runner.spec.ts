import { CommandError, CommandRunner } from './command-runner.js';

const runner = new CommandRunner();

test('output of a successful command', async () => {
  await expect(runner.run('sh', ['-c', 'echo out; echo err >&2'])).resolves.toEqual({
    stdout: 'out\n',
    stderr: 'err\n',
  });
});

test('a non-zero exit: command, code and trimmed stderr, and what it printed', async () => {
  const error = await runner
    .run('sh', ['-c', 'echo partial; echo "  went wrong  " >&2; exit 3'])
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(CommandError);
  expect(error).toMatchObject({ reason: 'exit', exitCode: 3, stderr: 'went wrong', stdout: 'partial\n' });
  expect((error as CommandError).message).toMatch(/^sh -c .*: exit 3: went wrong$/);
});

test('a missing program, directly, by override or on an empty PATH', async () => {
  await expect(runner.run('warren-no-such-program', [])).rejects.toMatchObject({ reason: 'not-found', exitCode: null });
  await expect(
    new CommandRunner({ programs: { wg: '/nonexistent/wg' } }).run('wg', ['--version']),
  ).rejects.toMatchObject({ reason: 'not-found' });
  await expect(new CommandRunner({ env: { PATH: '/nonexistent' } }).run('sh', ['-c', 'true'])).rejects.toMatchObject({
    reason: 'not-found',
  });
});

test('a command over its time limit is killed and reported as a timeout', async () => {
  // The deadline must fire: without it this waits for `sleep` far past the test's own limit.
  await expect(runner.run('sleep', ['600'], { timeoutMs: 100 })).rejects.toMatchObject({
    reason: 'timeout',
    command: 'sleep 600',
  });
});

test('the namespace prefix', () => {
  expect(new CommandRunner({ namespace: 'ns1' }).argv('wg', ['show'])).toEqual({
    file: 'ip',
    args: ['netns', 'exec', 'ns1', 'wg', 'show'],
  });
  expect(new CommandRunner({ namespace: 'ns1', programs: { wg: '/opt/wg' } }).argv('wg', [])).toEqual({
    file: 'ip',
    args: ['netns', 'exec', 'ns1', '/opt/wg'],
  });
  expect(runner.argv('wg', ['show'])).toEqual({ file: 'wg', args: ['show'] });
});

test('start: a long-running program in the background, with its pid and exit', async () => {
  const started = await runner.start('sleep', ['30']);
  expect(started.pid).toBeGreaterThan(0);
  process.kill(started.pid, 'SIGTERM');
  await expect(started.exited).resolves.toEqual({ code: null, signal: 'SIGTERM' });
  await expect(runner.start('warren-no-such-program', [])).rejects.toMatchObject({ reason: 'not-found' });
});
