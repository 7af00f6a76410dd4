import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import type { TestNamespace } from './netns.js';

const exec = promisify(execFile);

/** What this machine has, found by the test itself, so that suites expect what the host really offers. */
export interface HostFacts {
  /** The kernel's WireGuard: loaded (/sys/module/wireguard) or loadable (a link of that type can be made). */
  wireguardKernel: boolean;
  /** AmneziaWG's tools, both on PATH. */
  amnezia: boolean;
}

async function onPath(tool: string): Promise<boolean> {
  return exec('sh', ['-c', `command -v ${tool}`]).then(
    () => true,
    () => false,
  );
}

/** Reads the host's facts; the kernel is asked for a WireGuard link in `namespace` (made and removed there). */
export async function readHostFacts(namespace: TestNamespace): Promise<HostFacts> {
  let wireguardKernel = existsSync('/sys/module/wireguard');
  if (!wireguardKernel) {
    wireguardKernel = await namespace.exec('ip', 'link', 'add', 'dev', 'factswg0', 'type', 'wireguard').then(
      () => true,
      () => false,
    );
    if (wireguardKernel) await namespace.exec('ip', 'link', 'del', 'dev', 'factswg0');
  }
  return { wireguardKernel, amnezia: (await onPath('awg')) && (await onPath('amneziawg-go')) };
}
