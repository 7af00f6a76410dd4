import { isIP } from 'node:net';
import { domainName } from '#libs/contracts/routing.js';
import { badRequest } from '../http/api-error.js';
import { isIpAddress } from '../http/validators.js';

/**
 * Address, port and domain lists as routing and hops take them: checked entry by entry so a
 * refusal names the entry (`blockIps.3`), and normalised into the forms the host's tools read
 * (libs/contracts/routing.ts): addresses always with a prefix length, port ranges low-high.
 */

/** `10.0.0.1` → `10.0.0.1/32`; `10.0.0.0/8` as it is; a prefix beyond the family's width is refused. */
export function normalizeCidr(text: string, field: string): string {
  const [address, prefixText, ...rest] = text.split('/');
  const family = isIpAddress(address) ? isIP(address) : 0;
  const width = family === 6 ? 128 : 32;
  const prefix = prefixText === undefined ? width : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  if (family === 0 || rest.length > 0 || !(prefix >= 0 && prefix <= width)) {
    throw badRequest(`${field} must be an IPv4 or IPv6 address, optionally with a prefix length (10.0.0.0/8)`, field);
  }
  return `${address.toLowerCase()}/${prefix}`;
}

/** `443` or `6881-6889` (low ≤ high, each 1..65535). */
export function normalizePortRange(text: string, field: string): string {
  const match = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(text);
  const low = match ? Number(match[1]) : NaN;
  const high = match?.[2] !== undefined ? Number(match[2]) : low;
  if (!(low >= 1 && high <= 65535 && low <= high))
    throw badRequest(`${field} must be a port 1..65535 or a range low-high`, field);
  return low === high ? String(low) : `${low}-${high}`;
}

/** A domain matched with every name under it; stored lower-case, without a trailing dot. */
export function normalizeDomain(text: string, field: string): string {
  const name = text.toLowerCase().replace(/\.$/, '');
  if (!domainName.safeParse(name).success) throw badRequest(`${field} must be a domain name (example.com)`, field);
  return name;
}

/** Each entry normalised, duplicates dropped (first kept), or a 400 naming the bad entry. */
export function normalizeList(
  values: readonly string[],
  field: string,
  normalize: (text: string, field: string) => string,
): string[] {
  const seen = new Set<string>();
  values.forEach((value, index) => seen.add(normalize(value, `${field}.${index}`)));
  return [...seen];
}
