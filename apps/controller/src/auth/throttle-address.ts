import { isIPv4, isIPv6 } from 'node:net';

/**
 * The part of a client's address sign-in throttling counts by. An IPv4 address is one subscriber;
 * an IPv6 host usually has a whole /64 to itself and could step through it to get fresh counts,
 * so IPv6 counts by its /64. IPv4-mapped IPv6 (`::ffff:192.0.2.1`) counts as the IPv4 address.
 */
export function throttleAddress(ip: string): string {
  const address = ip.replace(/%.*$/, '').toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (mapped && isIPv4(mapped[1])) return mapped[1];
  if (!isIPv6(address)) return address;
  return `${expandIPv6(address).slice(0, 4).join(':')}::/64`;
}

/** The eight groups of an IPv6 address, without leading zeros (`2001:db8::1` → 2001, db8, 0, ..., 1). */
function expandIPv6(address: string): string[] {
  const [head, tail] = address.includes('::') ? address.split('::') : [address, undefined];
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  // A dotted IPv4 tail (`::1.2.3.4`) stands for two groups; only the first four matter here.
  const left = groups(head);
  const right = groups(tail);
  const missing = tail === undefined ? 0 : 8 - left.length - right.length;
  return [...left, ...Array<string>(missing).fill('0'), ...right].map((group) => group.replace(/^0+(?=.)/, ''));
}
