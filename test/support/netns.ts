import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { alive, testNamespaceName } from './leftovers.js';
import { randomSuffix } from './random-suffix.js';
import { GiveUp, waitFor } from './wait-for.js';

/**
 * Network namespaces for tests that run real WireGuard tools: each test file makes its own,
 * under a random name, and destroys it in afterAll whatever happened. Needs root.
 *
 * wireguard-go keeps its UAPI socket in /var/run/wireguard/<name>.sock, which is shared by all
 * namespaces: interface names must be unique on the whole machine (randomSuffix helps).
 */

const exec = promisify(execFile);

/** Fails with the Debian package to install when a tool is missing. */
export async function requireTools(tools: readonly string[], packages: string): Promise<void> {
  for (const tool of tools) {
    await exec('sh', ['-c', `command -v ${tool}`]).catch(() => {
      throw new Error(`${tool} is missing: apt-get install -y ${packages}`);
    });
  }
}

export class TestNamespace {
  private readonly children: ChildProcess[] = [];
  private destroyed = false;

  private constructor(readonly name: string) {}

  static async create(prefix = 'warren-t'): Promise<TestNamespace> {
    if (process.getuid?.() !== 0) throw new Error('network namespaces need root');
    const namespace = new TestNamespace(testNamespaceName(prefix));
    await exec('ip', ['netns', 'add', namespace.name]);
    await namespace.exec('ip', 'link', 'set', 'lo', 'up');
    return namespace;
  }

  /** Runs a command in the namespace; its stdout. */
  async exec(command: string, ...args: string[]): Promise<string> {
    const { stdout } = await exec('ip', ['netns', 'exec', this.name, command, ...args]);
    return stdout;
  }

  /** Starts wireguard-go in the namespace in the foreground, as our own child, and waits for its socket. */
  async wireguardGo(ifname: string): Promise<void> {
    const child = spawn('ip', ['netns', 'exec', this.name, 'wireguard-go', ifname], {
      env: { ...process.env, WG_PROCESS_FOREGROUND: '1' },
      stdio: 'ignore',
    });
    this.children.push(child);
    await waitFor(
      `wireguard-go ${ifname} to come up`,
      () => {
        if (child.exitCode !== null) throw new GiveUp(`wireguard-go ${ifname} exited with ${child.exitCode}`);
        return existsSync(`/var/run/wireguard/${ifname}.sock`);
      },
      5000,
      50,
    );
  }

  /**
   * Starts a long-running program in the namespace as our own child (a proxy, a test server),
   * ended by destroy() or by stopping it; `stop()` resolves once it has exited.
   */
  start(command: string, ...args: string[]): { child: ChildProcess; output: () => string; stop: () => Promise<void> } {
    const child = spawn('ip', ['netns', 'exec', this.name, command, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.children.push(child);
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<void>((resolve) =>
      child.exitCode !== null ? resolve() : child.once('exit', () => resolve()),
    );
    return {
      child,
      output: () => output,
      stop: async () => {
        if (child.exitCode === null) child.kill('SIGKILL');
        await exited;
      },
    };
  }

  /**
   * A veth pair from this namespace to `other` (created inside the namespaces, so the host never
   * sees it), with the given address on each end, both up. Returns the two ends' names.
   */
  async vethTo(other: TestNamespace, mine: string, theirs: string): Promise<{ mine: string; theirs: string }> {
    const suffix = randomSuffix(6);
    const names = { mine: `wv${suffix}a`, theirs: `wv${suffix}b` };
    await this.exec('ip', 'link', 'add', names.mine, 'type', 'veth', 'peer', 'name', names.theirs, 'netns', other.name);
    await this.exec('ip', 'address', 'add', mine, 'dev', names.mine);
    await other.exec('ip', 'address', 'add', theirs, 'dev', names.theirs);
    await this.exec('ip', 'link', 'set', names.mine, 'up');
    await other.exec('ip', 'link', 'set', names.theirs, 'up');
    return names;
  }

  /** Pids of every process in the namespace (daemons a test or the code under test left running). */
  async pids(): Promise<number[]> {
    const { stdout } = await exec('ip', ['netns', 'pids', this.name]);
    return stdout.split('\n').filter(Boolean).map(Number);
  }

  /**
   * Ends every process in the namespace (SIGTERM, so wireguard-go removes its socket; SIGKILL
   * after 5 s), then deletes it. A process left inside would keep the namespace alive unseen.
   */
  async destroy(): Promise<void> {
    if (this.destroyed) return;
    this.destroyed = true;
    for (const child of this.children) if (child.exitCode === null && child.pid) child.kill('SIGTERM');
    let pids = await this.pids().catch(() => [] as number[]);
    for (const pid of pids) signal(pid, 'SIGTERM');
    for (let waited = 0; pids.length > 0 && waited < 5000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      pids = pids.filter(alive);
    }
    for (const pid of pids) signal(pid, 'SIGKILL');
    await exec('ip', ['netns', 'del', this.name]);
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}
