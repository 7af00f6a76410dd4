import { ceilingExceeded, notFound } from '../http/api-error.js';
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
  /** Devices the client may have (0: unlimited). */
  deviceLimit?: number;
}

/**
 * Devices a reseller's client may have when the reseller has a `maxClients` ceiling: each device
 * holds an address on every interface of its client and a peer on their nodes, so an unlimited
 * device count would bypass the client count (docs/operators.md, "Ceilings").
 */
export const RESELLER_DEVICE_LIMIT = 10;

/** The device limit that holds for a reseller's client: 0 (unlimited) is the reseller's bound. */
export function effectiveDeviceLimit(account: ResellerAccount, deviceLimit: number): number {
  if (account.maxClients === null) return deviceLimit;
  return deviceLimit === 0 ? RESELLER_DEVICE_LIMIT : Math.min(deviceLimit, RESELLER_DEVICE_LIMIT);
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
  if (terms.interfaces) hideForbiddenInterfaces(account, terms.interfaces);
  if (terms.deviceLimit !== undefined && account.maxClients !== null) {
    if (terms.deviceLimit === 0 || terms.deviceLimit > RESELLER_DEVICE_LIMIT)
      throw ceilingExceeded(
        `deviceLimit must be 1..${RESELLER_DEVICE_LIMIT} under your client ceiling (0, unlimited, passes it)`,
        'deviceLimit',
        'maxClients',
        RESELLER_DEVICE_LIMIT,
      );
  }
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
}

/** Whether the reseller may use this interface (on this node). */
function mayUse(account: ResellerAccount, iface: { id: string; nodeId: string }): boolean {
  return (
    (account.interfaceIds === null || account.interfaceIds.includes(iface.id)) &&
    (account.nodeIds === null || account.nodeIds.includes(iface.nodeId))
  );
}

/** Whether every one of these interfaces (interface id → its node) is among the reseller's. */
export function mayUseAll(account: ResellerAccount, interfaces: ReadonlyMap<string, string>): boolean {
  return [...interfaces].every(([id, nodeId]) => mayUse(account, { id, nodeId }));
}

/**
 * Interfaces a reseller asks to attach clients to: one outside their ceilings answers exactly as a
 * made-up id does (provisioning's `lockInterfaces`), so a reseller cannot learn which interfaces
 * exist beyond those they may use.
 */
export function hideForbiddenInterfaces(
  account: ResellerAccount,
  interfaces: readonly { id: string; nodeId: string }[],
  field = 'interfaceIds',
): void {
  const forbidden = interfaces.find((iface) => !mayUse(account, iface));
  if (forbidden) throw notFound(`interface ${forbidden.id} not found`, field);
}

/**
 * Interfaces (with their nodes) a reseller's client is already on must be among those they may
 * use for the client to grow (a device added): 403 naming the interface and the room.
 */
export function checkInterfaces(account: ResellerAccount, interfaces: readonly { id: string; nodeId: string }[]): void {
  interfaces.forEach((iface, index) => {
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
  // Before the count: a forbidden interface answers as a made-up one whatever room is left.
  if (terms.interfaces) hideForbiddenInterfaces(account, terms.interfaces);
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
/** Whether the reseller's traffic pool is used up (a pool of null is unlimited). */
export function poolSpent(account: ResellerAccount): boolean {
  const left = poolLeft(account);
  return left !== null && left <= 0;
}

export function checkPoolNotSpent(account: ResellerAccount): void {
  if (poolSpent(account))
    throw ceilingExceeded(
      'your traffic pool is used up: the owner can reset it',
      'trafficPoolBytes',
      'trafficPoolBytes',
      0,
    );
}

/**
 * A bulk quota raise (`POST /api/clients/adjust`): `largest` is the largest limited quota among
 * the selected clients (0: none is limited, so nothing is raised). The largest after the raise
 * must fit the quota ceiling and what the pool has left, as one client's quota must; `remaining`
 * is the raise that would still fit. Lowering is never refused.
 */
export function checkQuotaRaise(account: ResellerAccount, largest: number, deltaBytes: number): void {
  if (deltaBytes <= 0 || largest === 0) return;
  const after = largest + deltaBytes;
  if (account.maxQuotaBytes !== null && after > account.maxQuotaBytes)
    throw ceilingExceeded(
      `a selected client's quota would reach ${after} bytes, past your ceiling of ${account.maxQuotaBytes} per client`,
      'deltaBytes',
      'maxQuotaBytes',
      Math.max(0, account.maxQuotaBytes - largest),
    );
  const left = poolLeft(account);
  if (left !== null && after > left)
    throw ceilingExceeded(
      `a selected client's quota would reach ${after} bytes, past what is left of your traffic pool (${left})`,
      'deltaBytes',
      'trafficPoolBytes',
      Math.max(0, left - largest),
    );
}

/**
 * A bulk extension (`POST /api/clients/extend`): `latest` is the latest expiry it would move (the
 * job's time when extending from now; null: it moves none). The latest new expiry must lie within
 * `maxExpiryDays` from now; `remaining` is the days that would still fit.
 */
export function checkExtension(account: ResellerAccount, latest: Date | null, days: number, now: Date): void {
  const most = account.maxExpiryDays;
  if (most === null || latest === null) return;
  const limit = now.getTime() + most * DAY_MS;
  if (latest.getTime() + days * DAY_MS > limit)
    throw ceilingExceeded(
      `a selected client would expire past ${new Date(limit).toISOString()}: at most ${most} days from now`,
      'days',
      'maxExpiryDays',
      Math.max(0, Math.floor((limit - latest.getTime()) / DAY_MS)),
    );
}

/**
 * One client's change in a bulk job, re-checked when the job runs (under the reseller's row lock):
 * whether a raised quota or a moved expiry passes a ceiling. The check at enqueue cannot count
 * jobs still queued (eight parallel extensions of one client each fit on their own); this one sees
 * what the jobs before it wrote, so such a client is skipped instead.
 */
export function changePassesCeiling(
  account: ResellerAccount,
  change: { quotaBytes?: number; expiresAt?: Date | null },
  now: Date,
): boolean {
  if (change.quotaBytes !== undefined) {
    const left = poolLeft(account);
    if (account.maxQuotaBytes !== null && change.quotaBytes > account.maxQuotaBytes) return true;
    if (left !== null && change.quotaBytes > left) return true;
  }
  if (change.expiresAt !== undefined && account.maxExpiryDays !== null) {
    const latest = now.getTime() + account.maxExpiryDays * DAY_MS;
    if (change.expiresAt === null || change.expiresAt.getTime() > latest) return true;
  }
  return false;
}
