import { BlockList, isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

/**
 * Which addresses a hop or a probe may not be aimed at unless the owner allowed private targets
 * (settings `allowPrivateTargets`): the host's own and loopback addresses, link-local (cloud
 * metadata), private networks (RFC 1918, CGNAT, IPv6 ULA), multicast, broadcast, unspecified and
 * reserved ones, IETF protocol assignments (192.0.0.0/24) and the benchmarking range
 * (198.18.0.0/15), and the IPv6 prefixes that lead on to IPv4 (below). Otherwise an admin could use hops and probes as a port scanner and content
 * reader of the internal network.
 *
 * One implementation for the controller (API checks) and the agent (probe targets, resolved hop
 * hosts). Addresses are compared in a canonical form, never as the text given: `FD00::0002`,
 * `fd00:0:0::2` and `fd00::2` are one address, and an IPv4 address written as IPv6
 * (`::ffff:127.0.0.1`, `::ffff:7f00:1`, `::127.0.0.1`) is unwrapped and checked as the IPv4
 * address it reaches.
 *
 * IPv6 prefixes that carry traffic on to an IPv4 address — NAT64 (`64:ff9b::/96`, and the
 * local-use `64:ff9b:1::/48`), 6to4 (`2002::/16`) and Teredo (`2001::/32`) — are refused whole:
 * where they lead is decided by a translator or relay the panel cannot see (a local-use NAT64
 * prefix may embed the IPv4 address at several offsets), so the IPv4 address they embed is
 * decoded only to say where they would lead.
 */

export interface CanonicalAddress {
  family: 4 | 6;
  /** Dotted quad, or eight lower-case hextets without leading zeros or `::`. */
  text: string;
}

/** Sixteen bytes of an IPv6 address (zone id dropped), or null when it is not one. */
function ipv6Bytes(text: string): Uint8Array | null {
  const address = text.replace(/%.*$/, '');
  if (isIP(address) !== 6) return null;
  let head = address;
  const tail: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (dotted) {
    const parts = dotted[1].split('.').map(Number);
    tail.push((parts[0] << 8) | parts[1], (parts[2] << 8) | parts[3]);
    head = address.slice(0, -dotted[1].length);
    if (head.endsWith(':') && !head.endsWith('::')) head = head.slice(0, -1);
  }
  const [left, right] = head.includes('::') ? head.split('::') : [head, undefined];
  const words = (part: string | undefined) =>
    part
      ? part
          .split(':')
          .filter((w) => w !== '')
          .map((w) => parseInt(w, 16))
      : [];
  const before = words(left);
  const after = [...words(right), ...tail];
  const missing = 8 - before.length - after.length;
  if (missing < 0 || (right === undefined && missing !== 0)) return null;
  const all = [...before, ...new Array<number>(missing).fill(0), ...after];
  const bytes = new Uint8Array(16);
  all.forEach((word, i) => {
    bytes[i * 2] = word >> 8;
    bytes[i * 2 + 1] = word & 0xff;
  });
  return bytes;
}

const zero = (bytes: Uint8Array, from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);
const dotted = (bytes: Uint8Array) => [...bytes].join('.');
const wellKnownNat64 = (bytes: Uint8Array) =>
  bytes[0] === 0 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zero(bytes, 4, 12);

/**
 * The IPv4 translation or tunnelling prefix an IPv6 address is in, and the IPv4 address it leads
 * to where that can be read off it; null for any other address.
 */
function translation(bytes: Uint8Array): { kind: string; reaches: string | null } | null {
  if (wellKnownNat64(bytes)) return { kind: 'NAT64 (64:ff9b::/96)', reaches: dotted(bytes.slice(12, 16)) };
  if (bytes[0] === 0 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && bytes[4] === 0 && bytes[5] === 1)
    return { kind: 'local-use NAT64 (64:ff9b:1::/48)', reaches: null };
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return { kind: '6to4 (2002::/16)', reaches: dotted(bytes.slice(2, 6)) };
  // Teredo: the client's IPv4 address is the last 32 bits, inverted (RFC 4380).
  if (bytes[0] === 0x20 && bytes[1] === 0x01 && bytes[2] === 0 && bytes[3] === 0)
    return { kind: 'Teredo (2001::/32)', reaches: dotted(bytes.slice(12, 16).map((b) => b ^ 0xff)) };
  return null;
}

/** The address in canonical form, IPv4 unwrapped from its IPv6 spellings; null when not an IP address. */
export function canonicalAddress(text: string): CanonicalAddress | null {
  const trimmed = text.trim().replace(/^\[(.*)\]$/, '$1');
  if (isIP(trimmed) === 4) return { family: 4, text: trimmed.split('.').map(Number).join('.') };
  const bytes = ipv6Bytes(trimmed);
  if (!bytes) return null;
  const v4 = (offset: number): CanonicalAddress => ({
    family: 4,
    text: [...bytes.slice(offset, offset + 4)].join('.'),
  });
  // ::ffff:a.b.c.d (mapped) and ::ffff:0:a.b.c.d (translated).
  if (zero(bytes, 0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return v4(12);
  if (zero(bytes, 0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && zero(bytes, 10, 12)) return v4(12);
  // ::a.b.c.d (compatible, deprecated), but not :: and ::1 themselves.
  if (zero(bytes, 0, 12) && !(zero(bytes, 12, 15) && bytes[15] <= 1)) return v4(12);
  // 64:ff9b::a.b.c.d (the NAT64 well-known prefix reaches the IPv4 address).
  if (wellKnownNat64(bytes)) return v4(12);
  const hextets: string[] = [];
  for (let i = 0; i < 16; i += 2) hextets.push(((bytes[i] << 8) | bytes[i + 1]).toString(16));
  return { family: 6, text: hextets.join(':') };
}

/** Each range with why it is forbidden, as a phrase with its article ("an unspecified"). */
const RANGES: [string, number, 'ipv4' | 'ipv6', string][] = [
  ['255.255.255.255', 32, 'ipv4', 'a broadcast'],
  ['0.0.0.0', 8, 'ipv4', 'an unspecified ("this network")'],
  ['127.0.0.0', 8, 'ipv4', 'a loopback'],
  ['169.254.0.0', 16, 'ipv4', 'a link-local'],
  ['10.0.0.0', 8, 'ipv4', 'a private (RFC 1918)'],
  ['172.16.0.0', 12, 'ipv4', 'a private (RFC 1918)'],
  ['192.168.0.0', 16, 'ipv4', 'a private (RFC 1918)'],
  ['100.64.0.0', 10, 'ipv4', 'a shared address space (CGNAT)'],
  ['224.0.0.0', 4, 'ipv4', 'a multicast'],
  ['240.0.0.0', 4, 'ipv4', 'a reserved'],
  ['192.0.0.0', 24, 'ipv4', 'an IETF protocol assignment (192.0.0.0/24)'],
  ['198.18.0.0', 15, 'ipv4', 'a benchmarking (198.18.0.0/15)'],
  ['::', 128, 'ipv6', 'an unspecified'],
  ['::1', 128, 'ipv6', 'a loopback'],
  ['fe80::', 10, 'ipv6', 'a link-local'],
  ['fec0::', 10, 'ipv6', 'a site-local'],
  ['fc00::', 7, 'ipv6', 'a unique local (private)'],
  ['ff00::', 8, 'ipv6', 'a multicast'],
];

const LISTS = RANGES.map(([network, prefix, family, reason]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, family);
  return { list, family, reason };
});

/** This host's own addresses, read each time (interfaces come and go). */
export function ownAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((info) => info.address));
}

/**
 * Why `address` may not be a hop or probe target (a short phrase), or null when it may. A text
 * that is not an IP address is refused too: callers resolve names first. `own` are the addresses
 * of the host the traffic would leave (default: this process's host).
 */
export function forbiddenReason(address: string, own: readonly string[] = ownAddresses()): string | null {
  const canonical = canonicalAddress(address);
  if (!canonical) return 'not an IP address';
  const bytes = ipv6Bytes(address.trim().replace(/^\[(.*)\]$/, '$1'));
  const translated = bytes && translation(bytes);
  if (translated) {
    if (translated.reaches === null) return `a ${translated.kind} address`;
    const beyond = forbiddenReason(translated.reaches, own);
    return `a ${translated.kind} address leading to ${translated.reaches}${beyond ? ` (${beyond})` : ''}`;
  }
  const family = canonical.family === 4 ? 'ipv4' : 'ipv6';
  for (const range of LISTS)
    if (range.family === family && range.list.check(canonical.text, family)) return `${range.reason} address`;
  if (own.some((mine) => canonicalAddress(mine)?.text === canonical.text)) return "one of this host's own addresses";
  return null;
}

/** `localhost` and names under it: always this host, whatever DNS says. */
export function isLocalhostName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}
