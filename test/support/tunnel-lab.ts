import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAgent, type AgentProcess } from './agent-process.js';
import {
  fixtures,
  type Fixtures,
  type InterfaceBody,
  type InterfaceView,
  type NodeView,
  type Schemas,
} from './fixtures.js';
import { requireTools, TestNamespace } from './netns.js';
import { randomSuffix } from './random-suffix.js';
import { startTestPanel, type TestPanel } from './test-panel.js';

/**
 * The bench every tunnel spec stands on: a panel, a node namespace whose agent (the built
 * binary) applies there, and client namespaces ("places") that reach the node over veth links,
 * each with wireguard-go to bring a profile up. Call `tunnelLab()` at the top of a spec: it
 * registers its own beforeAll (root, tools, namespaces, panel, sign-in) and afterAll (agent,
 * namespaces, work directory, panel, whatever happened).
 *
 * Addresses: place i is linked to the node on 172.31.<base+i>.0/24 (node .1, place .2). The
 * node's address on place 0's link is `nodeAddress`, what profiles dial; the other places reach
 * it through their own link (a route to it via the node's end there).
 */

export interface TunnelLabOptions {
  /** The spec's name, for the refusal when not root. */
  spec: string;
  /** Client namespaces linked to the node (default 1). */
  places?: number;
  /** Third octet of the first link (default 0). */
  base?: number;
  /** Tools needed beyond WireGuard's, iproute2 and ping, and the Debian packages that bring them. */
  tools?: { commands: string[]; packages: string };
  /** The panel's environment (startTestPanel's argument). */
  panelEnv?: Record<string, string>;
}

export interface LabNode {
  node: NodeView;
  iface: InterfaceView;
  /** The node once its agent applied the first state. */
  synced: Schemas['NodeDto'];
}

export interface TunnelLab extends Fixtures {
  readonly t: TestPanel;
  readonly token: string;
  readonly nodeNs: TestNamespace;
  /** Client namespaces, in link order. */
  readonly places: TestNamespace[];
  /** The first place. */
  readonly clientNs: TestNamespace;
  /** Scratch directory for profiles (removed in afterAll). */
  readonly workDir: string;
  /** The node's agent, once started. */
  readonly agent: AgentProcess;
  /** What profiles dial: the node's address on the first link. */
  readonly nodeAddress: string;
  /** Place i's own address. */
  placeAddress(i: number): string;
  /**
   * A node at `nodeAddress` with one interface (its endpoint `nodeAddress`), its agent started in
   * the node namespace, and waited for until in sync (the agent's output on failure).
   */
  startNode(
    iface: Partial<InterfaceBody> & { name: string },
    options?: { agentEnv?: Record<string, string>; timeoutMs?: number },
  ): Promise<LabNode>;
}

const WIREGUARD_TOOLS = ['wg', 'wg-quick', 'wireguard-go', 'ip', 'ping'];
const WIREGUARD_PACKAGES = 'wireguard-tools wireguard-go iproute2 iputils-ping';

export function tunnelLab(options: TunnelLabOptions): TunnelLab {
  const base = options.base ?? 0;
  const count = options.places ?? 1;
  const nodeAddress = `172.31.${base}.1`;
  let t: TestPanel | undefined;
  let token = '';
  let nodeNs: TestNamespace | undefined;
  const places: TestNamespace[] = [];
  let workDir = '';
  let agent: AgentProcess | undefined;
  const api = fixtures(() => ({ t: t!, token }));
  const need = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the tunnel lab has no ${what} yet`);
    return value;
  };

  beforeAll(async () => {
    if (process.getuid?.() !== 0)
      throw new Error(`${options.spec} needs root (network namespaces, wireguard-go, the tools it names)`);
    await requireTools(
      [...WIREGUARD_TOOLS, ...(options.tools?.commands ?? [])],
      [WIREGUARD_PACKAGES, options.tools?.packages ?? ''].join(' ').trim(),
    );
    workDir = mkdtempSync(join(tmpdir(), 'warren-e2e-'));
    nodeNs = await TestNamespace.create('warren-node');
    for (let i = 0; i < count; i++) {
      const place = await TestNamespace.create('warren-client');
      places.push(place);
      const net = `172.31.${base + i}`;
      await nodeNs.vethTo(place, `${net}.1/24`, `${net}.2/24`);
      if (i > 0) await place.exec('ip', 'route', 'add', `${nodeAddress}/32`, 'via', `${net}.1`);
    }
    t = await startTestPanel(options.panelEnv);
    token = await t.login();
  }, 60_000);

  afterAll(async () => {
    await agent?.stop().catch(() => undefined);
    for (const ns of [nodeNs, ...places]) await ns?.destroy().catch(() => undefined);
    if (agent) rmSync(agent.dataDir, { recursive: true, force: true });
    if (workDir) rmSync(workDir, { recursive: true, force: true });
    await t?.stop();
  }, 60_000);

  return {
    ...api,
    get t() {
      return need(t, 'panel');
    },
    get token() {
      return token;
    },
    get nodeNs() {
      return need(nodeNs, 'node namespace');
    },
    places,
    get clientNs() {
      return need(places[0], 'place');
    },
    get workDir() {
      return workDir;
    },
    get agent() {
      return need(agent, 'agent');
    },
    nodeAddress,
    placeAddress: (i) => `172.31.${base + i}.2`,
    async startNode(iface, startOptions = {}) {
      const node = await api.createNode({ name: `e2e-${randomSuffix(6)}`, address: nodeAddress });
      const created = await api.createInterface({ nodeId: node.id, endpointHost: nodeAddress, ...iface });
      agent = startAgent({
        controllerUrl: need(t, 'panel').api.replace(/\/api$/, ''),
        enrolSecret: node.enrolment!.secret,
        netns: need(nodeNs, 'node namespace').name,
        ...(startOptions.agentEnv ? { env: startOptions.agentEnv } : {}),
      });
      const synced = await api.nodeInSync(node.id, startOptions.timeoutMs).catch((error: Error) => {
        throw new Error(`${error.message}\n--- agent output\n${agent!.output()}`);
      });
      return { node, iface: created, synced };
    },
  };
}
