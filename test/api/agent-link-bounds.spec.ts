import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { COUNTER_SEQ_WINDOW, MAX_PEER_BYTES_PER_BATCH } from '#libs/contracts/agent-link.js';
import { MAX_AGENT_MESSAGE_BYTES } from '#libs/contracts/link-message-size.js';
import { AgentLinkGateway } from '../../apps/controller/src/nodes/link/agent-link.gateway.js';
import { metricValues } from '../../apps/controller/src/system/sample-rows.js';
import { SampleWriter } from '../../apps/controller/src/system/sample-writer.js';
import { SystemService } from '../../apps/controller/src/system/system.service.js';
import { CONTROLLER_SOURCE } from '../../apps/controller/src/system/tiers.js';
import { CAPABILITIES, closeLinks, enrol, helloAs, type OpenLink } from '../support/agent-link-client.js';
import { answer, fixtures } from '../support/fixtures.js';
import { randomSuffix } from '../support/random-suffix.js';
import { systemSample } from '../support/system-sample.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';
import { waitFor } from '../support/wait-for.js';

/**
 * What one enrolled node can send on its agent link, and what it cannot do to the others: every
 * number bounded by the contract (refused, logged for that node, nothing stored), sequence numbers
 * within a window, messages no larger than the largest legitimate one, and a link that floods
 * without reading cut off alone. Real panel, real PostgreSQL and Redis, raw WebSocket clients.
 */

let t: TestPanel;
let token: string;
let system: SystemService;
const { typed, createNode } = fixtures(() => ({ t, token }));

beforeAll(async () => {
  t = await startTestPanel();
  token = await t.login();
  system = t.panel.app.get(SystemService);
}, 60_000);
afterAll(async () => {
  closeLinks();
  await t?.stop();
}, 60_000);
afterEach(() => jest.restoreAllMocks());

/** An enrolled node and its agent link after hello. */
async function linkedNode(): Promise<{ id: string; link: OpenLink }> {
  const node = await createNode({ name: `bounds-${randomSuffix(8)}` });
  const access = await enrol(t, node.enrolment!.secret);
  return { id: node.id, link: await helloAs(t, access.credential) };
}

/** Warnings the controller logs from here on. */
function warnings(): string[] {
  const logged: string[] = [];
  jest.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => void logged.push(String(message)));
  return logged;
}

async function storedSources(sources: string[]): Promise<string[]> {
  const rows = await t.query<{ source: string }>(
    'select distinct source from system_samples where source = any($1::uuid[])',
    [sources],
  );
  return rows.map((row) => row.source).sort();
}

describe('numbers in agent messages', () => {
  test('a sample out of bounds (cores 40000, at 2^53) is refused and logged for its node; the others and GET /api/system go on', async () => {
    const hostile = await linkedNode();
    const good = await linkedNode();
    const logged = warnings();
    const now = Date.now();

    hostile.link.send({
      type: 'system',
      sample: { ...systemSample(now), cpu: { ...systemSample(now).cpu, cores: 40_000 } },
    });
    expect(await hostile.link.next('error')).toMatchObject({
      error: expect.stringMatching(/^invalid message: sample\.cpu\.cores: /),
    });
    hostile.link.send({ type: 'system', sample: systemSample(2 ** 53) });
    expect(await hostile.link.next('error')).toMatchObject({
      error: expect.stringMatching(/^invalid message: sample\.at: /),
    });
    hostile.link.send({ type: 'heartbeat', at: 2 ** 53 });
    expect(await hostile.link.next('error')).toMatchObject({ error: expect.stringMatching(/^invalid message: at: /) });
    expect(
      logged.some((line) => line.includes(`node ${hostile.id}: refused a message: invalid message: sample.cpu.cores`)),
    ).toBe(true);
    expect(logged.every((line) => !line.includes(good.id))).toBe(true);

    good.link.send({ type: 'system', sample: systemSample(now, { cpu: 12 }) });
    const snapshot = await waitFor('the good node sample in GET /api/system', async () => {
      const body = (await answer(typed().GET('/api/system'))).body;
      return body.nodes.find((node) => node.id === good.id)?.system ? body : undefined;
    });
    expect(snapshot.nodes.find((node) => node.id === good.id)!.system).toMatchObject({
      at: now,
      cpu: { percent: 12, cores: 4 },
    });
    expect(snapshot.nodes.find((node) => node.id === hostile.id)!.system).toBeNull();
    await system.flush();
    expect(await storedSources([hostile.id, good.id])).toEqual([good.id]);
  });

  test('counters out of bounds are refused, nothing recorded; a sequence number beyond the window too, within it counts', async () => {
    const { id, link } = await linkedNode();
    const peer = {
      interface: 'wg0',
      publicKey: `${'A'.repeat(43)}=`,
      rxBytes: 1,
      txBytes: 1,
      lastHandshake: null,
      endpoint: '192.0.2.1:51820',
    };
    const seqOf = async () =>
      (await t.query<{ counters_seq: string }>('select counters_seq from node_agents where node_id = $1', [id]))[0]
        .counters_seq;

    link.send({
      type: 'counters',
      seq: 1,
      at: Date.now(),
      peers: [{ ...peer, rxBytes: MAX_PEER_BYTES_PER_BATCH + 1 }],
    });
    expect(await link.next('error')).toMatchObject({
      error: expect.stringMatching(/^invalid message: peers\.0\.rxBytes: /),
    });
    link.send({ type: 'counters', seq: 1, at: Date.now(), peers: [{ ...peer, endpoint: 'x'.repeat(65) }] });
    expect(await link.next('error')).toMatchObject({
      error: expect.stringMatching(/^invalid message: peers\.0\.endpoint: /),
    });
    expect(await seqOf()).toBe('0');

    link.send({ type: 'counters', seq: 1, at: Date.now(), peers: [peer] });
    expect(await link.next('ack')).toEqual({ type: 'ack', seq: 1 });
    link.send({ type: 'counters', seq: 2 + COUNTER_SEQ_WINDOW, at: Date.now(), peers: [peer] });
    expect(await link.next('error')).toEqual({
      type: 'error',
      error: `counter batch ${2 + COUNTER_SEQ_WINDOW} is more than ${COUNTER_SEQ_WINDOW} ahead of the last one recorded (1)`,
    });
    expect(await seqOf()).toBe('1');
    link.send({ type: 'counters', seq: 1 + COUNTER_SEQ_WINDOW, at: Date.now(), peers: [peer] });
    expect(await link.next('ack')).toEqual({ type: 'ack', seq: 1 + COUNTER_SEQ_WINDOW });
    expect(await seqOf()).toBe(String(1 + COUNTER_SEQ_WINDOW));
  });

  test('a batch sent again on its link once recorded is acknowledged without the database; a new link asks it again', async () => {
    const node = await createNode({ name: `resend-${randomSuffix(8)}` });
    const access = await enrol(t, node.enrolment!.secret);
    const link = await helloAs(t, access.credential);
    const seqOf = async () =>
      (await t.query<{ s: string }>('select counters_seq as s from node_agents where node_id = $1', [node.id]))[0].s;
    link.send({ type: 'counters', seq: 1, at: Date.now(), peers: [] });
    expect(await link.next('ack')).toEqual({ type: 'ack', seq: 1 });
    expect(await seqOf()).toBe('1');
    // Behind the controller's back (nothing moves it back in earnest): a resend that went to the
    // database would be taken as new and move it to 1 again.
    await t.query('update node_agents set counters_seq = 0 where node_id = $1', [node.id]);
    link.send({ type: 'counters', seq: 1, at: Date.now(), peers: [] });
    expect(await link.next('ack')).toEqual({ type: 'ack', seq: 1 });
    expect(await seqOf()).toBe('0');
    // A new link (the agent's hello) is looked up in the database again.
    link.socket.close();
    const again = await helloAs(t, access.credential);
    again.send({ type: 'counters', seq: 1, at: Date.now(), peers: [] });
    expect(await again.next('ack')).toEqual({ type: 'ack', seq: 1 });
    expect(await seqOf()).toBe('1');
  });

  test('text no database can store (NUL, unpaired surrogates) is refused as invalid, not retried forever', async () => {
    const { id, link } = await linkedNode();
    link.send({ type: 'hello', version: '1.0\u0000x', capabilities: CAPABILITIES, gaps: [], appliedRevision: 0 });
    expect(await link.next('error')).toMatchObject({
      error: 'invalid message: version: text may not contain NUL characters or unpaired surrogates',
    });
    link.send({ type: 'hello', version: '1.0', capabilities: CAPABILITIES, gaps: ['\ud800 gap'], appliedRevision: 0 });
    expect(await link.next('error')).toMatchObject({
      error: expect.stringMatching(/^invalid message: gaps\.0: text may not contain/),
    });
    link.send({
      type: 'applied',
      result: {
        revision: 1,
        ok: false,
        durationMs: 1,
        interfaces: [{ name: 'wg0', state: 'failed', driver: 'none', peers: 0, error: 'bad\u0000' }],
      },
    });
    expect(await link.next('error')).toMatchObject({
      error: expect.stringMatching(/^invalid message: result\.interfaces\.0\.error: text may not contain/),
    });
    const [agent] = await t.query<{ version: string; last_apply: unknown }>(
      'select version, last_apply from node_agents where node_id = $1',
      [id],
    );
    expect(agent).toEqual({ version: 'test-agent', last_apply: null });
  });

  test('a node sending samples faster than one a second fills its history with one a second', async () => {
    const { id, link } = await linkedNode();
    for (let i = 0; i < 30; i++) link.send({ type: 'system', sample: systemSample(Date.now()) });
    link.send({ type: 'heartbeat', at: Date.now() });
    await waitFor('the samples handled', async () =>
      (await answer(typed().GET('/api/system'))).body.nodes.find((node) => node.id === id)?.system ? true : undefined,
    );
    await system.flush();
    const [{ count }] = await t.query<{ count: string }>('select count(*) from system_samples where source = $1', [id]);
    expect(Number(count)).toBeGreaterThanOrEqual(1);
    expect(Number(count)).toBeLessThanOrEqual(2);
  });

  test('a row the database refuses costs only that row: other nodes and the controller keep their history', async () => {
    const bad = (await createNode()).id;
    const good = (await createNode()).id;
    const writer = t.panel.app.get(SampleWriter);
    const now = Date.now();
    // What the contract now refuses at the link, as a row a future bound might miss: cores beyond smallint.
    writer.add({ source: bad, at: now, values: { ...metricValues(systemSample(now)), cores: 40_000 } });
    writer.add({ source: bad, at: now - 2000, values: metricValues(systemSample(now - 2000)) });
    system.record(good, systemSample(now), new Date(now));
    system.record(null, systemSample(now), new Date(now));
    await system.flush();
    expect(await storedSources([bad, good])).toEqual([bad, good].sort());
    const badRows = await t.query<{ cores: number }>('select cores from system_samples where source = $1', [bad]);
    expect(badRows).toEqual([{ cores: 4 }]);
    const [controller] = await t.query<{ count: string }>(
      'select count(*) from system_samples where source = $1 and at = to_timestamp($2 / 1000.0)',
      [CONTROLLER_SOURCE, now],
    );
    expect(controller.count).toBe('1');
    // Nothing stays behind to fail the next writes.
    expect(writer.pending(bad)).toEqual([]);
    system.record(good, systemSample(now + 2000), new Date(now + 2000));
    await system.flush();
    expect(writer.pending(good)).toEqual([]);
  });
});

describe('message size and backpressure', () => {
  test('a frame one byte over the largest legitimate message is refused before it is read (1009); other links go on', async () => {
    const hostile = await linkedNode();
    const good = await linkedNode();
    hostile.link.socket.send('x'.repeat(MAX_AGENT_MESSAGE_BYTES + 1));
    expect(await hostile.link.closed).toMatchObject({ code: 1009 });
    good.link.send({ type: 'counters', seq: 1, at: Date.now(), peers: [] });
    expect(await good.link.next('ack')).toEqual({ type: 'ack', seq: 1 });
  });

  test('an agent that floods without reading its answers is cut off (1008); other links are answered meanwhile', async () => {
    const flooder = await linkedNode();
    const good = await linkedNode();
    const gateway = t.panel.app.get(AgentLinkGateway);
    flooder.link.socket.pause(); // reads nothing from here on: the controller's answers pile up
    const frame = JSON.stringify({ type: 'heartbeat', at: -1 }); // each one answered with an error
    let sent = 0;
    await waitFor(
      "the controller to cut the flooder's link",
      async () => {
        if (!gateway.connectedNodes().includes(flooder.id)) return true;
        // Flood in bursts, letting the socket drain between them.
        if (flooder.link.socket.bufferedAmount < 1024 * 1024) {
          for (let i = 0; i < 5000; i++) flooder.link.socket.send(frame);
          sent += 5000;
        }
        return false;
      },
      120_000,
      10,
    );
    good.link.send({ type: 'counters', seq: 1, at: Date.now(), peers: [] });
    expect(await good.link.next('ack')).toEqual({ type: 'ack', seq: 1 });
    flooder.link.socket.resume();
    expect(await flooder.link.closed).toMatchObject({ code: 1008 });
    expect(sent).toBeGreaterThan(0);
  }, 180_000);
});
