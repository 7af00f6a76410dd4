import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

/**
 * Addresses a probe may not be aimed at unless the operator allowed private targets: the
 * agent's own host (loopback, its interfaces' addresses) and link-local or unspecified ones,
 * where cloud metadata services and the panel's private services live. Evaluated inside the
 * node's namespace (the probe child runs there), so "own addresses" are the node's.
 */
export function forbiddenReason(address: string): string | null {
  const ip = address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
  const family = isIP(ip);
  if (family === 4) {
    const [a, b] = ip.split('.').map(Number);
    if (a === 127) return 'loopback';
    if (a === 169 && b === 254) return 'link-local';
    if (a === 0) return 'unspecified';
  } else if (family === 6) {
    const lower = ip.toLowerCase();
    if (lower === '::1') return 'loopback';
    if (lower === '::') return 'unspecified';
    if (/^fe[89ab]/.test(lower)) return 'link-local';
  } else {
    return 'not an IP address';
  }
  for (const list of Object.values(networkInterfaces())) {
    for (const info of list ?? []) if (info.address.toLowerCase() === ip.toLowerCase()) return "one of this node's own addresses";
  }
  return null;
}
