import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';

/** How long one name may take to resolve before the check says it did not. */
export const RESOLVE_TIMEOUT_MS = 3000;

export interface Resolution {
  addresses: string[];
  error?: string;
}

/**
 * A name's IPv4 and IPv6 addresses. An IP literal is its own answer (no lookup). With `servers`
 * those DNS servers are asked (A and AAAA); without, the system resolver (getaddrinfo: /etc/hosts,
 * then resolv.conf). Never throws: a failure or the timeout is the answer's `error`.
 */
export async function resolveName(name: string, servers?: readonly string[]): Promise<Resolution> {
  const bare = name.replace(/^\[(.*)\]$/, '$1');
  if (isIP(bare) !== 0) return { addresses: [canonical(bare)] };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${RESOLVE_TIMEOUT_MS} ms`)), RESOLVE_TIMEOUT_MS);
  });
  try {
    const addresses = await Promise.race([servers?.length ? ask(bare, servers) : lookup(bare), timeout]);
    return addresses.length > 0 ? { addresses } : { addresses, error: 'the name has no address' };
  } catch (error) {
    return { addresses: [], error: describe(error) };
  } finally {
    clearTimeout(timer);
  }
}

async function lookup(name: string): Promise<string[]> {
  const found = await dns.lookup(name, { all: true, verbatim: true });
  return unique(found.map((entry) => canonical(entry.address)));
}

async function ask(name: string, servers: readonly string[]): Promise<string[]> {
  const resolver = new dns.Resolver({ timeout: RESOLVE_TIMEOUT_MS, tries: 1 });
  resolver.setServers([...servers]);
  const [v4, v6] = await Promise.allSettled([resolver.resolve4(name), resolver.resolve6(name)]);
  const addresses = [v4, v6].flatMap((result) => (result.status === 'fulfilled' ? result.value : []));
  if (addresses.length === 0 && v4.status === 'rejected') throw v4.reason;
  return unique(addresses.map(canonical));
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
