import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeQueueName } from '#libs/contracts/node-queue.js';
import { NODE_UPDATE_JOB, UPDATE_FILES } from '#libs/contracts/node-update.js';
import { WARREN_VERSION } from '#libs/version/warren-version.js';
import { agentInstallDir, agentPackage, currentRelease, neverLinkingPackage } from '../support/agent-install-dir.js';
import { startAgent, type AgentProcess } from '../support/agent-process.js';
import { fixtures } from '../support/fixtures.js';
import { requireTools, TestNamespace } from '../support/netns.js';
import { queuesOf } from '../support/node-queue.js';
import { randomSuffix } from '../support/random-suffix.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';
import { GiveUp, waitFor } from '../support/wait-for.js';

/**
 * POST /api/nodes/{id}/update with real agents run through their launcher
 * (bin/warren-agent-launcher) from a releases layout in a temporary directory: the agent
 * downloads the panel's package with its credential, verifies its SHA-256, installs it beside,
 * switches and restarts into it, and the panel sees the new version; a wrong checksum is refused
 * with nothing switched; a new release that never links is switched back by the launcher and the
 * old version links again. The panel serves a package file (WARREN_AGENT_PACKAGE) the test
 * writes: its own build, or one whose agent never links. Needs root (network namespaces).
 */

const OLD = '0.0.9-old';
let ns: TestNamespace | undefined;
let t: TestPanel;
let token: string;
let served: string;
const agents: AgentProcess[] = [];
const dirs: string[] = [];

const { call, createNode, getNode } = fixtures(() => ({ t, token }));

beforeAll(async () => {
  if (process.getuid?.() !== 0) throw new Error('node-update.spec needs root (network namespaces)');
  await requireTools(['ip', 'wg', 'nft'], 'iproute2 wireguard-tools nftables');
  ns = await TestNamespace.create('warren-nu');
  const packageDir = mkdtempSync(join(tmpdir(), 'warren-served-'));
  dirs.push(packageDir);
  served = join(packageDir, 'agent.tgz');
  writeFileSync(served, await agentPackage());
  t = await startTestPanel({ WARREN_AGENT_PACKAGE: served });
  token = await t.login();
}, 120_000);

afterAll(async () => {
  for (const agent of agents) await agent.stop().catch(() => undefined);
  await ns?.destroy().catch(() => undefined);
  for (const dir of [...dirs, ...agents.map((agent) => agent.dataDir)]) rmSync(dir, { recursive: true, force: true });
  await t?.stop();
}, 60_000);

/** A node whose agent runs OLD through its launcher from a fresh install directory, linked. */
async function nodeOnOldRelease() {
  const node = await createNode({ name: `upd-${randomSuffix(6)}` });
  const installDir = await agentInstallDir(OLD);
  dirs.push(installDir);
  const agent = startAgent({
    controllerUrl: t.api.replace(/\/api$/, ''),
    enrolSecret: node.enrolment!.secret,
    netns: ns!.name,
    installDir,
  });
  agents.push(agent);
  await waitFor(
    'the old agent to link',
    async () => {
      const view = await getNode(node.id);
      return view.agent.state === 'connected' && view.agent.version === OLD;
    },
    60_000,
  );
  return { node, installDir, agent };
}

async function updateOf(nodeId: string) {
  return (await call('GET', `nodes/${nodeId}/update`)).body as {
    state: string;
    error: string | null;
    fromVersion: string;
    toVersion: string;
  };
}

test("an agent updates to the panel's package: it restarts into it, reports the new version, and the skew warning clears", async () => {
  writeFileSync(served, await agentPackage());
  const { node, installDir, agent } = await nodeOnOldRelease();
  const launcher = agent.current.child.pid;

  const started = await call('POST', `nodes/${node.id}/update`, { linkDeadlineSeconds: 60 });
  expect(started.status).toBe(202);
  expect(started.body).toMatchObject({
    nodeId: node.id,
    fromVersion: OLD,
    toVersion: WARREN_VERSION,
    sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    state: 'installing',
    linkDeadlineSeconds: 60,
  });
  // A second one while it runs is refused.
  expect((await call('POST', `nodes/${node.id}/update`)).status).toBe(409);

  await waitFor(
    'the update to be done',
    async () => {
      const update = await updateOf(node.id);
      if (update.state === 'failed' || update.state === 'rolled-back')
        throw new GiveUp(`update ${update.state}: ${update.error}\n${agent.output()}`);
      return update.state === 'done';
    },
    120_000,
  );
  const view = await getNode(node.id);
  expect(view.agent).toMatchObject({ state: 'connected', version: WARREN_VERSION });
  // The same launcher process, the new release beside the old one, nothing pending.
  expect(agent.current.child.pid).toBe(launcher);
  expect(agent.current.child.exitCode).toBeNull();
  expect(currentRelease(installDir)).toBe(`releases/${WARREN_VERSION}`);
  expect(readdirSync(join(installDir, 'releases')).sort()).toEqual([OLD, WARREN_VERSION].sort());
  expect(existsSync(join(installDir, UPDATE_FILES.pending))).toBe(false);
  expect(agent.output()).toContain(`${WARREN_VERSION} linked to the panel: update kept`);

  // The probe asks the agent now running: the panel's version, no warning; nor in the security warnings.
  const probe = await call('POST', `nodes/${node.id}/probe`);
  expect(probe.body).toMatchObject({ agentVersion: WARREN_VERSION, versionSkew: 'same', versionWarning: null });
  const warnings = (await call('GET', 'security/warnings')).body as { warnings: { code: string; message: string }[] };
  const older = warnings.warnings.find((warning) => warning.code === 'agents-older-than-panel');
  expect(older?.message ?? '').not.toContain(node.name);

  // Running the panel's version already: nothing to update.
  const again = await call('POST', `nodes/${node.id}/update`);
  expect(again.status).toBe(409);
  expect((again.body as { error: string }).error).toContain(`already runs ${WARREN_VERSION}`);
}, 240_000);

test('a package whose checksum does not match is refused: nothing switched, the old agent keeps running', async () => {
  writeFileSync(served, await agentPackage());
  const { node, installDir, agent } = await nodeOnOldRelease();
  const queue = queuesOf(t).queue(nodeQueueName(node.id));
  const wrong = 'f'.repeat(64);
  const jobId = `node-update:${node.id}:test-${randomSuffix(8)}`;
  await queue.add(
    NODE_UPDATE_JOB,
    { version: WARREN_VERSION, sha256: wrong, linkDeadlineSeconds: 30 },
    { jobId, attempts: 1 },
  );
  const reason = await waitFor(
    'the agent to refuse the job',
    async () => ((await queue.getJobState(jobId)) === 'failed' ? (await queue.getJob(jobId))?.failedReason : undefined),
    60_000,
  );
  expect(reason).toContain(`checksum mismatch`);
  expect(reason).toContain(`not ${wrong}: nothing was switched`);
  expect(currentRelease(installDir)).toBe(`releases/${OLD}`);
  expect(readdirSync(join(installDir, 'releases'))).toEqual([OLD]);
  expect(existsSync(join(installDir, UPDATE_FILES.pending))).toBe(false);
  expect(agent.current.child.exitCode).toBeNull();
  expect((await getNode(node.id)).agent).toMatchObject({ state: 'connected', version: OLD });
  // Still answering work: the probe reaches the old agent.
  expect((await call('POST', `nodes/${node.id}/probe`)).body).toMatchObject({ agentVersion: OLD });
}, 120_000);

test('a new release that never links is rolled back by the launcher, and the old version links again', async () => {
  const BROKEN = '0.2.0-never-links';
  writeFileSync(served, await neverLinkingPackage(BROKEN));
  const { node, installDir, agent } = await nodeOnOldRelease();

  const started = await call('POST', `nodes/${node.id}/update`, { linkDeadlineSeconds: 10 });
  expect(started).toMatchObject({ status: 202, body: { fromVersion: OLD, toVersion: BROKEN } });
  await waitFor(
    'the update to be rolled back',
    async () => {
      const update = await updateOf(node.id);
      if (update.state === 'failed' || update.state === 'done')
        throw new GiveUp(`update ${update.state}: ${update.error}\n${agent.output()}`);
      return update.state === 'rolled-back' ? update : undefined;
    },
    120_000,
  );
  expect((await updateOf(node.id)).error).toContain(`${BROKEN} did not link within 10 s`);
  expect((await getNode(node.id)).agent).toMatchObject({ state: 'connected', version: OLD });
  expect(currentRelease(installDir)).toBe(`releases/${OLD}`);
  expect(existsSync(join(installDir, UPDATE_FILES.pending))).toBe(false);
  expect(agent.output()).toContain(`${BROKEN} did not link within 10s: rolling back to releases/${OLD}`);
  expect(agent.current.child.exitCode).toBeNull();
}, 240_000);
