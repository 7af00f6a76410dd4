import { isIpv4 } from '#libs/wireguard/ipv4.js';
import type { CommandRunner } from './command-runner.js';
import { addressArg, mtuArg, tunnelArg } from './host-arguments.js';
import type { Link } from './links.js';

/**
 * The interface's own address, MTU and up (or kept down) state, changed only where the link differs from what
 * is desired: a no-op apply runs no `ip` command at all.
 */

export interface InterfaceAddress {
  local: string;
  prefixlen: number;
}

/** Parses "10.8.0.1/24" (an address with its subnet's prefix: host bits set on purpose). */
export function parseInterfaceAddress(text: string): InterfaceAddress | null {
  const slash = text.indexOf('/');
  if (slash === -1) return null;
  const local = text.slice(0, slash);
  const prefixText = text.slice(slash + 1);
  if (!isIpv4(local) || !/^(3[0-2]|[12]\d|\d)$/.test(prefixText)) return null;
  return { local, prefixlen: Number(prefixText) };
}

export async function reconcileAddressing(
  runner: CommandRunner,
  link: Link,
  address: InterfaceAddress,
  mtu: number,
  /** Kept down (the node's tunnels are stopped): addressed, but the link stays down. */
  down = false,
): Promise<void> {
  const name = tunnelArg(link.name);
  const wanted = addressArg(address.local, address.prefixlen);
  const mtuText = mtuArg(mtu);
  const present = link.addresses.some(
    (a) => a.family === 'inet' && a.local === address.local && a.prefixlen === address.prefixlen,
  );
  if (!present) await runner.run('ip', ['address', 'replace', wanted, 'dev', name]);
  for (const stale of link.addresses) {
    if (stale.family === 'inet' && stale.local === address.local && stale.prefixlen === address.prefixlen) continue;
    // Link-local IPv6 is the kernel's own (a TUN device gets one); removing it only makes it come back.
    // Stale addresses come from the kernel's own answer (ip -j), so they are not checked again.
    if (stale.scope === 'link') continue;
    await runner.run('ip', ['address', 'del', `${stale.local}/${stale.prefixlen}`, 'dev', name]);
  }
  if (link.mtu !== mtu || link.up === down)
    await runner.run('ip', ['link', 'set', 'dev', name, 'mtu', mtuText, down ? 'down' : 'up']);
}
