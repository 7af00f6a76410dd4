import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import { forbiddenReason } from '#libs/net/forbidden-targets.js';

/** How long one name may take to resolve before the check says it did not. */
export const RESOLVE_TIMEOUT_MS = 3000;

export interface Resolution {
  addresses: string[];
  error?: string;
}

/**
 * A name's IPv4 and IPv6 addresses. An IP literal is its own answer (no lookup). Otherwise DNS
 * is asked (A and AAAA): `servers`, or without them the system's DNS servers (resolv.conf). Never
 * the system resolver's files: /etc/hosts names the panel host's own and internal machines, and a
 * check must not read them out to whoever may run it. Never throws: a failure or the timeout is
 * the answer's `error`.
 */
export async function resolveName(name: string, servers?: readonly string[]): Promise<Resolution> {
  const bare = name.replace(/^\[(.*)\]$/, '$1');
  if (isIP(bare) !== 0) return { addresses: [canonical(bare)] };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${RESOLVE_TIMEOUT_MS} ms`)), RESOLVE_TIMEOUT_MS);
  });
  try {
    const addresses = await Promise.race([ask(bare, servers), timeout]);
    return addresses.length > 0 ? { addresses } : { addresses, error: 'the name has no address' };
  } catch (error) {
    return { addresses: [], error: describe(error) };
  } finally {
    clearTimeout(timer);
  }
}

/** A and AAAA from DNS (a new Resolver starts with the system's servers, from resolv.conf). */
async function ask(name: string, servers?: readonly string[]): Promise<string[]> {
  const resolver = new dns.Resolver({ timeout: RESOLVE_TIMEOUT_MS, tries: 1 });
  if (servers?.length) resolver.setServers([...servers]);
  try {
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(name), resolver.resolve6(name)]);
    const addresses = [v4, v6].flatMap((result) => (result.status === 'fulfilled' ? result.value : []));
    if (addresses.length === 0 && v4.status === 'rejected') throw v4.reason;
    return unique(addresses.map(canonical));
  } finally {
    resolver.cancel();
  }
}

/** What a check may print of a resolution. */
export interface Shown {
  addresses: string[];
  /** Said instead of the addresses left out. */
  note?: string;
}

/**
 * What a check prints of `name`'s resolution: unless settings allow private targets, no address
 * a name resolved to that is forbidden as a target (private, loopback, link-local, this host's;
 * libs/net/forbidden-targets.ts), only that there was one, as hop, probe and route-test refusals
 * say it: otherwise whoever may check could map internal DNS one name at a time. An IP literal
 * is what the caller wrote, so it is printed as it is.
 */
export function shownResolution(name: string, found: Resolution, allowPrivate: boolean): Shown {
  if (allowPrivate || isIP(name.replace(/^\[(.*)\]$/, '$1')) !== 0) return { addresses: found.addresses };
  const addresses = found.addresses.filter((address) => forbiddenReason(address) === null);
  if (addresses.length === found.addresses.length) return { addresses };
  return {
    addresses,
    note: `${name} resolves to a private address (not shown: settings do not allow private targets)`,
  };
}

function describe(error: unknown): string {
  const code = (error as { code?: string }).code;
  if (code === 'ENOTFOUND') return 'the name does not exist (NXDOMAIN)';
  if (code === 'ENODATA') return 'the name has no address';
  return code ? `${code}: ${(error as Error).message}` : (error as Error).message;
}

/** One spelling per address, so addresses compare as text. */
function canonical(address: string): string {
  if (isIP(address) !== 6) return address;
  return new URL(`http://[${address}]/`).hostname.slice(1, -1);
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
