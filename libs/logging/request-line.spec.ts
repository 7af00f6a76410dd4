import { spawnSync } from 'node:child_process';
import { oneLineRequest } from './logger.js';

const request = {
  level: 30,
  time: '2026-11-27T17:00:00.000Z',
  context: 'http',
  reqId: 'r1',
  method: 'GET',
  path: '/api/nodes',
  route: '/api/nodes',
  status: 200,
  ms: 3.1,
  msg: 'request answered',
};

test('a request line becomes one message with method, path, status, time and request id', () => {
  expect(JSON.parse(oneLineRequest(`${JSON.stringify(request)}\n`))).toEqual({
    level: 30,
    time: '2026-11-27T17:00:00.000Z',
    context: 'http',
    msg: 'GET /api/nodes 200 3.1 ms (r1)',
  });
});

test('other lines pass unchanged', () => {
  const line = `${JSON.stringify({ level: 40, reqId: 'r1', msg: 'something else', path: '/x' })}\n`;
  expect(oneLineRequest(line)).toBe(line);
});

// The built logger (npm run build), in a process of its own: pino-pretty writes to the file descriptor.
test('the pretty (terminal) format prints a request in one line', () => {
  const script = `
    const { createLogger } = await import(${JSON.stringify(new URL('../../dist/libs/logging/logger.js', import.meta.url).pathname)});
    createLogger({ name: 'warren', level: 'log', pretty: true }).info(${JSON.stringify(request)}, 'request answered');
  `;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  expect(result.stdout.trim().split('\n')).toHaveLength(1);
  expect(result.stdout).toContain('GET /api/nodes 200 3.1 ms (r1)');
});
