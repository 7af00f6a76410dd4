/**
 * IPv4 addresses are handled as unsigned 32-bit integers so that ranges, masks and pools are
 * plain arithmetic. Bitwise operators in JS yield signed 32-bit results, hence the `>>> 0`.
 */

export interface Cidr {
  /** Network address as an unsigned integer (host bits are always zero). */
  network: number;
  prefix: number;
}

/** Thrown for any malformed address or CIDR; the message is safe to show to an operator. */
export class Ipv4FormatError extends Error {
  override name = 'Ipv4FormatError';
}

export function isIpv4(s: unknown): s is string {
  return typeof s === 'string' && parseIpv4(s) >= 0;
}

export function ipToInt(ip: string): number {
  const n = parseIpv4(ip);
  if (n < 0) throw new Ipv4FormatError(`"${ip}" is not a dotted-quad IPv4 address`);
  return n;
}

/**
 * The address as an unsigned integer, or -1. Hand-rolled rather than a regex because pools
 * parse every allocated address of an interface (tens of thousands) on each allocation.
 * Leading zeros are refused: some parsers read "010" as octal 8, and accepting it would store
 * an address other tools interpret differently.
 */
function parseIpv4(s: string): number {
  const length = s.length;
  if (length < 7 || length > 15) return -1;
  let result = 0;
  let octet = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      if (digits === 1 && octet === 0) return -1;
      octet = octet * 10 + (c - 48);
      if (octet > 255) return -1;
      digits++;
    } else if (c === 46 && digits > 0 && dots < 3) {
      result = result * 256 + octet;
      octet = 0;
      digits = 0;
      dots++;
    } else {
      return -1;
    }
  }
  if (dots !== 3 || digits === 0) return -1;
  return result * 256 + octet;
}

export function intToIp(n: number): string {
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) {
    throw new RangeError(`${n} is not an IPv4 address as an unsigned 32-bit integer`);
  }
  return `${n >>> 24}.${(n >>> 16) & 0xff}.${(n >>> 8) & 0xff}.${n & 0xff}`;
}

export function prefixMask(prefix: number): number {
  // `<< 32` is a no-op in JS (shift counts are mod 32), so /0 needs its own case.
  return prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
}

/**
 * Parses "a.b.c.d/n". An address with host bits set (e.g. "10.0.0.5/24") is refused rather
 * than silently normalised: the operator probably mistyped, and guessing which network they
 * meant could hand out addresses from the wrong range. The message suggests the fix.
 */
export function parseCidr(s: string): Cidr {
  const slash = s.indexOf('/');
  if (slash < 0) throw new Ipv4FormatError(`"${s}" is not a CIDR: expected a.b.c.d/prefix`);
  const addr = s.slice(0, slash);
  const prefixText = s.slice(slash + 1);
  if (!/^(3[0-2]|[12][0-9]|[0-9])$/.test(prefixText)) {
    throw new Ipv4FormatError(`"${s}" has an invalid prefix length: expected 0..32`);
  }
  if (!isIpv4(addr)) throw new Ipv4FormatError(`"${s}" is not a CIDR: "${addr}" is not an IPv4 address`);
  const prefix = Number(prefixText);
  const ip = ipToInt(addr);
  const network = (ip & prefixMask(prefix)) >>> 0;
  if (network !== ip) {
    throw new Ipv4FormatError(`"${s}" has host bits set; the network is ${intToIp(network)}/${prefix}`);
  }
  return { network, prefix };
}

export function formatCidr(c: Cidr): string {
  return `${intToIp(c.network)}/${c.prefix}`;
}

/** Number of addresses in the block, including network and broadcast. */
export function addressCount(c: Cidr): number {
  return 2 ** (32 - c.prefix);
}

export function broadcastAddress(c: Cidr): number {
  return c.network + addressCount(c) - 1;
}

export function cidrContains(c: Cidr, ip: number): boolean {
  return ip >= c.network && ip <= broadcastAddress(c);
}

/** CIDR blocks either nest or are disjoint, so overlap means one contains the other's network. */
export function cidrsOverlap(a: Cidr | string, b: Cidr | string): boolean {
  const x = typeof a === 'string' ? parseCidr(a) : a;
  const y = typeof b === 'string' ? parseCidr(b) : b;
  const mask = prefixMask(Math.min(x.prefix, y.prefix));
  return (x.network & mask) >>> 0 === (y.network & mask) >>> 0;
}
