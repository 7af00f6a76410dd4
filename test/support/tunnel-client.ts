import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TestNamespace } from './netns.js';
import { randomSuffix } from './random-suffix.js';
import { waitFor } from './wait-for.js';

const exec = promisify(execFile);

/**
 * A client device for real: a profile from the API brought up as a wireguard-go interface in a
 * test namespace, the way wg-quick would (strip, setconf, address, up), with a route to the
 * tunnel network only (the namespace keeps its own default route).
 */
export async function bringUpProfile(
  ns: TestNamespace,
  profileBody: string,
  workDir: string,
  tunnelNetwork: string,
): Promise<string> {
  const ifname = `wc${randomSuffix(8)}`;
  const path = join(workDir, `${ifname}.conf`);
  writeFileSync(path, profileBody, { mode: 0o600 });
  const { stdout: stripped } = await exec('wg-quick', ['strip', path]);
  const strippedPath = join(workDir, `${ifname}.stripped`);
  writeFileSync(strippedPath, stripped, { mode: 0o600 });
  await ns.wireguardGo(ifname);
  await ns.exec('wg', 'setconf', ifname, strippedPath);
  const address = /^Address = (.+)$/m.exec(profileBody)![1];
  await ns.exec('ip', 'address', 'add', address, 'dev', ifname);
  await ns.exec('ip', 'link', 'set', ifname, 'up');
  await ns.exec('ip', 'route', 'add', tunnelNetwork, 'dev', ifname);
  return ifname;
}

/** Public keys of the peers an interface in the namespace has. */
export async function peersOf(ns: TestNamespace, ifname: string): Promise<string[]> {
  const out = await ns.exec('wg', 'show', ifname, 'peers');
  return out.split('\n').filter(Boolean);
}

/** Server-side transfer counters of one peer (what the kernel counted): [rx, tx]. */
export async function transferOf(
  ns: TestNamespace,
  ifname: string,
  publicKey: string,
): Promise<[number, number] | undefined> {
  const lines = (await ns.exec('wg', 'show', ifname, 'dump')).trim().split('\n').slice(1);
  const line = lines.map((l) => l.split('\t')).find((fields) => fields[0] === publicKey);
  return line ? [Number(line[5]), Number(line[6])] : undefined;
}

/** A client's usage as the API answers it (GET /api/clients/{id}). */
export interface ClientUsage {
  upBytes: number;
  downBytes: number;
  usedBytes: number;
}

/**
 * Waits until the API's usage of a client equals what the node's WireGuard counted for its peer
 * (plus what earlier links counted, `carried`), to the byte, and returns that reading. The kernel
 * is read again on every try: a keepalive or a late ACK after the traffic moves the counters, and
 * the next report brings the usage level with them again. Returns the reading (carried included)
 * and the usage that matched it; what both said last is in the failure.
 */
export async function usageMatchesKernel<T extends ClientUsage>(options: {
  ns: TestNamespace;
  ifname: string;
  publicKey: string;
  readUsage: () => Promise<T>;
  what: string;
  carried?: { rx: number; tx: number };
  timeoutMs?: number;
  /** More to say when it fails (the agent's output, say). */
  context?: () => string;
}): Promise<{ rx: number; tx: number; usage: T }> {
  const carried = options.carried ?? { rx: 0, tx: 0 };
  let last = 'nothing read yet';
  return waitFor(
    options.what,
    async () => {
      const [hostRx, hostTx] = (await transferOf(options.ns, options.ifname, options.publicKey)) ?? [0, 0];
      const usage = await options.readUsage();
      const [rx, tx] = [carried.rx + hostRx, carried.tx + hostTx];
      last = `node rx ${hostRx} tx ${hostTx} (+ carried ${carried.rx}/${carried.tx}), API up ${usage.upBytes} down ${usage.downBytes} used ${usage.usedBytes}`;
      return usage.upBytes === rx && usage.downBytes === tx && usage.usedBytes === rx + tx
        ? { rx, tx, usage }
        : undefined;
    },
    options.timeoutMs ?? 20_000,
    200,
  ).catch((error: Error) => {
    throw new Error(`${error.message} (${last})${options.context ? `\n${options.context()}` : ''}`);
  });
}

/** One ping through the tunnel; true when answered within a second. */
export async function pingOnce(ns: TestNamespace, address: string): Promise<boolean> {
  return ns.exec('ping', '-c', '1', '-W', '1', address).then(
    () => true,
    () => false,
  );
}

/**
 * Resolves `name` (A records) from inside the namespace by asking `server` the way a client's
 * stub resolver would: one UDP query, one second to answer. The addresses, or the resolver's
 * error code (ECONNREFUSED, ETIMEOUT, ENOTFOUND...) as a rejection.
 */
export async function resolveIn(ns: TestNamespace, server: string, name: string): Promise<string[]> {
  const program = `const r=new (require('node:dns').Resolver)({timeout:1000,tries:1});r.setServers([process.argv[1]]);r.resolve4(process.argv[2],(e,a)=>{if(e){console.error(e.code);process.exit(1)}console.log(JSON.stringify(a))})`;
  try {
    const { stdout } = await exec('ip', ['netns', 'exec', ns.name, process.execPath, '-e', program, server, name]);
    return JSON.parse(stdout) as string[];
  } catch (error) {
    throw new Error(
      `resolving ${name} through ${server}: ${((error as { stderr?: string }).stderr ?? String(error)).trim()}`,
      { cause: error },
    );
  }
}

/**
 * Sends `bytes` over TCP from `from` to a sink listening in `to` on `address`, through whatever
 * route connects them (the tunnel). Both ends are small Node programs inside the namespaces. A
 * send not done within `timeoutMs` fails, and both ends are ended.
 */
export async function sendThrough(
  from: TestNamespace,
  to: TestNamespace,
  address: string,
  bytes: number,
  timeoutMs = 60_000,
): Promise<void> {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const sink = `const s=require('net').createServer(c=>{let n=0;c.on('data',d=>n+=d.length);c.on('end',()=>{c.end();s.close();console.log(n)})});s.listen(${port},'${address}',()=>console.log('ready'));`;
  const { spawn } = await import('node:child_process');
  const server = spawn('ip', ['netns', 'exec', to.name, process.execPath, '-e', sink], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  server.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const done = new Promise<void>((resolve, reject) => {
    server.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`sink exited ${code}`))));
  });
  await waitFor('the sink to start', () => out.includes('ready'), 20_000, 50);
  const source = `const c=require('net').connect(${port},'${address}',()=>{const b=Buffer.alloc(65536,7);let left=${bytes};const w=()=>{while(left>0){const n=Math.min(left,b.length);left-=n;if(!c.write(b.subarray(0,n))){c.once('drain',w);return}}c.end()};w()});c.on('data',()=>{});c.on('close',()=>process.exit(0));c.on('error',e=>{console.error(e.message);process.exit(1)})`;
  try {
    await exec('ip', ['netns', 'exec', from.name, process.execPath, '-e', source], { timeout: timeoutMs });
  } catch (error) {
    done.catch(() => undefined);
    server.kill('SIGKILL');
    throw error;
  }
  await done;
  const received = Number(out.split('\n')[1]);
  if (received !== bytes) throw new Error(`the sink received ${received} of ${bytes} bytes`);
}

/**
 * Sends `chunk` bytes after `chunk` bytes from `from` to `to` (sendThrough) until stopped, so that
 * counters move all the while; stop() waits for the chunk under way and resolves to the bytes sent.
 */
export function keepSending(
  from: TestNamespace,
  to: TestNamespace,
  address: string,
  chunk = 1024 * 1024,
): { sent(): number; stop(): Promise<number> } {
  let stopping = false;
  let sent = 0;
  const loop = (async () => {
    while (!stopping) {
      await sendThrough(from, to, address, chunk);
      sent += chunk;
    }
  })();
  loop.catch(() => undefined); // rethrown by stop()
  return {
    sent: () => sent,
    async stop() {
      stopping = true;
      await loop;
      return sent;
    },
  };
}

/** Public keys the database says must be on the interface: enabled accounts of active clients. */
export async function desiredPeersOf(
  query: <T>(sql: string, params: unknown[]) => Promise<T[]>,
  interfaceId: string,
): Promise<string[]> {
  const rows = await query<{ public_key: string }>(
    `select a.public_key from accounts a join devices d on d.id = a.device_id join clients c on c.id = d.client_id
      where a.interface_id = $1 and a.enabled and c.status = 'active'`,
    [interfaceId],
  );
  return rows.map((row) => row.public_key).sort();
}
