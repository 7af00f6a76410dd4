import type { CommandRunner } from './command-runner.js';

/**
 * The host's links as one `ip -d -j address show` reports them: existence, index, kind, MTU,
 * up/down and addresses of every interface in one command, so an apply compares against a
 * snapshot instead of asking about each interface separately.
 */

export interface LinkAddress {
  family: 'inet' | 'inet6';
  local: string;
  prefixlen: number;
  scope: string;
}

export interface Link {
  ifindex: number;
  name: string;
  /** `wireguard` (kernel), `tun` (wireguard-go), `veth`…; null for plain devices. */
  kind: string | null;
  mtu: number;
  /** Administratively up (the UP flag, not the carrier). */
  up: boolean;
  addresses: LinkAddress[];
}

interface IpJsonLink {
  ifindex: number;
  ifname: string;
  flags?: string[];
  mtu: number;
  linkinfo?: { info_kind?: string };
  addr_info?: { family?: string; local?: string; prefixlen?: number; scope?: string }[];
}

export async function readLinks(runner: CommandRunner): Promise<Map<string, Link>> {
  const { stdout } = await runner.run('ip', ['-d', '-j', 'address', 'show']);
  return parseLinks(stdout);
}

export function parseLinks(json: string): Map<string, Link> {
  const links = new Map<string, Link>();
  for (const raw of JSON.parse(json) as IpJsonLink[]) {
    const addresses: LinkAddress[] = [];
    for (const a of raw.addr_info ?? []) {
      if ((a.family === 'inet' || a.family === 'inet6') && a.local !== undefined && a.prefixlen !== undefined) {
        addresses.push({ family: a.family, local: a.local, prefixlen: a.prefixlen, scope: a.scope ?? 'global' });
      }
    }
    links.set(raw.ifname, {
      ifindex: raw.ifindex,
      name: raw.ifname,
      kind: raw.linkinfo?.info_kind ?? null,
      mtu: raw.mtu,
      up: raw.flags?.includes('UP') ?? false,
      addresses,
    });
  }
  return links;
}

/** Just the names, for cheap existence checks (`ip -o link show` is a fraction of the address dump). */
export async function readLinkNames(runner: CommandRunner): Promise<Set<string>> {
  const { stdout } = await runner.run('ip', ['-o', 'link', 'show']);
  const names = new Set<string>();
  // Lines look like `3: wg0: <POINTOPOINT,…> mtu 1420 …`, or `4: veth0@if3: …` for paired links.
  for (const line of stdout.split('\n')) {
    const first = line.indexOf(': ');
    if (first === -1) continue;
    const second = line.indexOf(': ', first + 2);
    if (second === -1) continue;
    const name = line.slice(first + 2, second);
    const at = name.indexOf('@');
    names.add(at === -1 ? name : name.slice(0, at));
  }
  return names;
}
