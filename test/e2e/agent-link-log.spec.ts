import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { freePort } from '../../libs/net/free-port.js';
import { startAgent, type AgentProcess } from '../support/agent-process.js';
import { fixtures } from '../support/fixtures.js';
import { TestNamespace } from '../support/netns.js';
import { jsonLines } from '../support/output-tap.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';
import { waitFor } from '../support/wait-for.js';

/**
 * What an operator reading the agent's log (journalctl -u warren-agent, at the default level) learns
 * of its link to the controller: each outage once, as a warning with its reason, and its end. The
 * built agent in a namespace of the test's own; the controller stopped and started again on the
 * same port and database. Needs root.
 */

const INFO = 30;
const WARN = 40;

let database: TestDatabase;
let namespace: TestNamespace;
let env: Record<string, string>;
let panel: TestPanel | undefined;
let agent: AgentProcess | undefined;

beforeAll(async () => {
  if (process.getuid?.() !== 0) throw new Error('agent-link-log.spec needs root (network namespaces)');
  database = await createTestDatabase();
  namespace = await TestNamespace.create();
  env = { WARREN_PORT: String(await freePort()), WARREN_QUEUE_PREFIX: `wt${randomBytes(4).toString('hex')}` };
}, 60_000);
afterAll(async () => {
  await agent?.stop();
  if (agent) rmSync(agent.dataDir, { recursive: true, force: true });
  await panel?.stop();
  await namespace?.destroy();
  await database?.drop();
}, 60_000);

/**
 * The agent's log lines about its link, at info and above, as `level message`; sorted, since
 * warnings (stderr) and the rest (stdout) are read from two streams, not in the order written.
 */
function linkLines(): string[] {
  return jsonLines(agent!.output())
    .filter((line) => line.context === 'link' && (line.level as number) >= INFO)
    .map(
      (line) =>
        `${line.level === WARN ? 'warn' : line.level === INFO ? 'info' : String(line.level)} ${String(line.msg)}`,
    )
    .sort();
}

/** Failed connection attempts so far (each logged at debug only). */
const failedAttempts = () =>
  jsonLines(agent!.output()).filter((line) => line.context === 'link' && String(line.msg).startsWith('link error'))
    .length;

test('a lost controller is one warning with its reason, however many attempts fail; its return is logged too', async () => {
  panel = await startTestPanel(env, { database });
  const token = await panel.login();
  const node = await fixtures(() => ({ t: panel!, token })).createNode({ name: 'link-log', address: '192.0.2.10' });
  agent = startAgent({
    controllerUrl: panel.api.replace(/\/api$/, ''),
    enrolSecret: node.enrolment!.secret,
    netns: namespace.name,
    env: { WARREN_LOG_LEVEL: 'debug', WARREN_LOG_FORMAT: 'json' },
  });
  await waitFor('the agent linked', () => linkLines().some((line) => line.startsWith('info linked to the controller')));

  await panel.stop();
  panel = undefined;
  // Several attempts fail while the controller is away: still one warning.
  await waitFor('three failed reconnection attempts', () => failedAttempts() >= 3, 60_000);
  const during = linkLines().filter((line) => line.startsWith('warn'));
  expect(during).toHaveLength(1);
  expect(during[0]).toMatch(/^warn lost the link to the controller: closed by the controller .+; reconnecting$/);

  panel = await startTestPanel(env, { database });
  await waitFor('the agent linked again', () => linkLines().length >= 4, 60_000);
  expect(linkLines()).toEqual([
    `info linked to the controller as node ${node.id}`,
    `info linked to the controller as node ${node.id}`,
    expect.stringMatching(/^info the link to the controller is back after \d+ s$/),
    during[0],
  ]);
}, 180_000);
