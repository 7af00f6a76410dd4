import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { Logger } from '@nestjs/common';
import { forbiddenReason, isLocalhostName } from '#libs/net/forbidden-targets.js';
import { badRequest } from '../http/api-error.js';
import { withTimeout } from './with-timeout.js';

const RESOLVE_TIMEOUT_MS = 2000;
const logger = new Logger('private-targets');

/**
 * What the caller hears about a name the panel itself would fetch from when it resolves to a
 * forbidden address and when it does not resolve at all: one sentence, or the difference would
 * tell an admin which internal names exist. The server log keeps which it was.
 */
export const notPublic = (host: string) => `${host} cannot be fetched: it does not resolve to a public address`;

/**
 * Refuses a target (a hop's host, the probe URL's host) that is, or resolves to, an address of
 * libs/net/forbidden-targets.ts (loopback, private, link-local, multicast, the panel host's own…),
 * unless settings allow private targets: the panel would otherwise make requests into internal
 * networks on a caller's behalf. A name that does not resolve now (or not within 2 s) is
 * accepted: the agent checks what it resolves to where it runs (probes and hop daemons alike);
 * a URL the panel fetches itself (`fetchedByPanel`) is refused then, in the same words as one
 * resolving to a forbidden address (notPublic).
 */
export type Resolver = (host: string) => Promise<{ address: string }[]>;

const systemResolver: Resolver = (host) => lookup(host, { all: true });

/**
 * A refusal names what the caller gave (a host name, or an address and its range) but never the
 * address a name resolved to: every role reads the errors hops and probes leave, and printing it
 * would let an admin map internal DNS one name at a time.
 */
export async function assertPublicTarget(
  host: string,
  field: string,
  what: string,
  resolve: Resolver = systemResolver,
  /** The panel itself fetches from it (subscriptions): a name must resolve now. */
  fetchedByPanel = false,
): Promise<void> {
  const refuse = (reason: string) =>
    badRequest(
      `${reason}; ${what} may not point at the panel's own or private addresses unless settings allow private targets`,
      field,
    );
  if (isLocalhostName(host)) throw refuse(`${host} is this host`);
  if (isIP(host) !== 0) {
    const reason = forbiddenReason(host);
    if (reason) throw refuse(`${host} is ${reason}`);
    return;
  }
  let failure: string | null = null;
  const resolved = await withTimeout(resolve(host), RESOLVE_TIMEOUT_MS, `resolving ${host}`).catch((error: Error) => {
    failure = error.message;
    return [];
  });
  const forbidden = resolved.some(({ address }) => forbiddenReason(address) !== null);
  if (fetchedByPanel && (forbidden || resolved.length === 0)) {
    if (forbidden) logger.warn(`${what}: ${host} refused: it resolves to a forbidden address`);
    else logger.debug(`${what}: ${host} refused: it does not resolve (${failure ?? 'no addresses'})`);
    throw refuse(notPublic(host));
  }
  if (forbidden) throw refuse(`${host} resolves to a forbidden address`);
}
