import { ceilingExceeded } from '../http/api-error.js';
import type { ResellerAccount } from './reseller-limits.repository.js';

const DAY_MS = 86_400_000;

/** What a create or change sets of a client's terms; absent: not changed by this request. */
export interface ClientTerms {
  quotaBytes?: number;
  /** The fixed expiry (null: never), unless the client starts on first use. */
  expiresAt?: Date | null;
  /** Set for a client that starts on first use: its service period. */
  durationSeconds?: number;
  /** The interfaces asked for, in the request's order, with the node each is on. */
  interfaces?: { id: string; nodeId: string }[];
}

/** The pool's bytes left; null when the reseller has no pool ceiling. */
export function poolLeft(account: ResellerAccount): number | null {
  return account.trafficPoolBytes === null ? null : Math.max(0, account.trafficPoolBytes - account.poolUsedBytes);
}

/**
 * Refuses (403, naming the field, the ceiling and the room left) terms that pass a reseller's
 * ceilings (docs/operators.md, "Ceilings"). Only what the request sets is checked: a change that
 * leaves the quota alone is not refused for a quota set before the ceiling was.
 */
export function checkTerms(account: ResellerAccount, terms: ClientTerms, now: Date): void {
  if (terms.quotaBytes !== undefined) {
    const quota = terms.quotaBytes;
    if (account.maxQuotaBytes !== null && (quota === 0 || quota > account.maxQuotaBytes))
      throw ceilingExceeded(
        `quotaBytes must be 1..${account.maxQuotaBytes}: your ceiling per client (0, unlimited, passes it)`,
        'quotaBytes',
        'maxQuotaBytes',
        account.maxQuotaBytes,
      );
    const left = poolLeft(account);
    if (left !== null && (quota === 0 || quota > left))
      throw ceilingExceeded(
        `quotaBytes must be 1..${left}: what is left of your traffic pool (0, unlimited, passes it)`,
        'quotaBytes',
        'trafficPoolBytes',
        left,
      );
  }
  const days = account.maxExpiryDays;
  if (days !== null) {
    if (terms.durationSeconds !== undefined && terms.durationSeconds > days * 86_400)
      throw ceilingExceeded(`the service period may last at most ${days} days`, 'durationDays', 'maxExpiryDays', days);
    if (terms.expiresAt !== undefined && terms.durationSeconds === undefined) {
      const latest = now.getTime() + days * DAY_MS;
      if (terms.expiresAt === null || terms.expiresAt.getTime() > latest)
        throw ceilingExceeded(
          `expiresAt must lie within ${days} days from now (${new Date(latest).toISOString()}); never is beyond it`,
          'expiresAt',
          'maxExpiryDays',
          days,
        );
    }
  }
  terms.interfaces?.forEach((iface, index) => {
    if (account.interfaceIds !== null && !account.interfaceIds.includes(iface.id))
      throw ceilingExceeded(
        'this interface is not among those you may use',
        `interfaceIds[${index}]`,
        'interfaceIds',
        account.interfaceIds,
      );
    if (account.nodeIds !== null && !account.nodeIds.includes(iface.nodeId))
      throw ceilingExceeded(
        "this interface's node is not among those you may use",
        `interfaceIds[${index}]`,
        'nodeIds',
        account.nodeIds,
      );
  });
}

/** A new client: one more than the reseller has must fit `maxClients`, and its terms every other ceiling. */
export function checkNewClient(account: ResellerAccount, owned: number, terms: ClientTerms, now: Date): void {
  checkNewClients(account, owned, 1, terms, now);
}

/**
 * `count` new clients with the same terms (a batch): all of them must fit `maxClients` at once
 * (a batch is all or none), and their terms every other ceiling.
 */
export function checkNewClients(
  account: ResellerAccount,
  owned: number,
  count: number,
  terms: ClientTerms,
  now: Date,
): void {
  if (account.maxClients !== null && owned + count > account.maxClients)
    throw ceilingExceeded(
      count === 1
        ? `you have ${owned} of at most ${account.maxClients} clients`
        : `you have ${owned} of at most ${account.maxClients} clients: ${count} more do not fit`,
      'maxClients',
      'maxClients',
      Math.max(0, account.maxClients - owned),
    );
  checkTerms(account, terms, now);
}

/** A traffic reset gives a client more to use: refused once the pool is used up. */
export function checkPoolNotSpent(account: ResellerAccount): void {
  const left = poolLeft(account);
  if (left !== null && left <= 0)
    throw ceilingExceeded(
      'your traffic pool is used up: the owner can reset it',
      'trafficPoolBytes',
      'trafficPoolBytes',
      0,
    );
}
