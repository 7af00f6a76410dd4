import { lookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { Logger } from '@nestjs/common';
import { forbiddenReason, isLocalhostName } from '#libs/net/forbidden-targets.js';
import { notPublic } from './private-targets.js';

const logger = new Logger('pinned-target');

/** Thrown before any connection: the target is not one the panel may reach. */
export class ForbiddenTarget extends Error {}

/**
 * Resolves a URL's host now and checks every address it gives against the forbidden targets
 * (libs/net/forbidden-targets.ts). The URL was checked when it was saved, but a name can resolve
 * elsewhere later (DNS rebinding): the connection then goes to the address checked here (see
 * pinnedLookup), never to a second lookup's answer. Used by webhooks and outbound subscriptions.
 */
export async function resolveTarget(host: string, allowPrivate: boolean): Promise<{ address: string; family: number }> {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  if (!allowPrivate && isLocalhostName(bare)) throw new ForbiddenTarget(`${host} is this host`);
  if (isIP(bare) !== 0) {
    const reason = allowPrivate ? null : forbiddenReason(bare);
    if (reason) throw new ForbiddenTarget(`${host} is or resolves to a forbidden address (${reason})`);
    return { address: bare, family: isIP(bare) };
  }
  const addresses = await lookup(bare, { all: true }).catch((error: Error) => {
    // Unknown and internal names read the same to the caller (notPublic); the log tells them apart.
    if (allowPrivate) throw error;
    logger.debug(`${host} refused: it does not resolve (${error.message})`);
    throw new ForbiddenTarget(notPublic(host));
  });
  if (addresses.length === 0) {
    if (allowPrivate) throw new Error(`${host} does not resolve`);
    throw new ForbiddenTarget(notPublic(host));
  }
  // The address a name resolved to is not named: logs and errors are read by every manager.
  if (!allowPrivate && addresses.some(({ address }) => forbiddenReason(address) !== null)) {
    logger.warn(`${host} refused: it resolves to a forbidden address`);
    throw new ForbiddenTarget(notPublic(host));
  }
  return addresses[0];
}

/** A lookup that answers the address resolveTarget checked, whatever the name resolves to now. */
export function pinnedLookup(target: { address: string; family: number }): LookupFunction {
  return (_host, options, callback) => {
    if ((options as { all?: boolean }).all) callback(null, [target]);
    else callback(null, target.address, target.family);
  };
}
