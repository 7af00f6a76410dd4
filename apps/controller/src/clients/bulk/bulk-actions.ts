import type { EntityManager } from '@mikro-orm/postgresql';
import { changePassesCeiling, mayUseAll, poolSpent } from '../../resellers/ceilings.js';
import type { ResellerLimitsRepository } from '../../resellers/reseller-limits.repository.js';
import { affectsPeers, allowanceMoved, nextStatus } from '../client-status.js';
import type { ClientsRepository } from '../clients.repository.js';
import type { ProvisioningService } from '../provisioning.service.js';
import type { BulkJobsRepository, ChunkClient, ClientWrite } from './bulk-jobs.repository.js';
import type { SkipReason } from '../dto/bulk.response.js';

/** What a bulk job does to each client it selected, with its parameters (stored with the job). */
export type BulkWork =
  | { action: 'enable' | 'disable' | 'delete' | 'reset' | 'purge' }
  | { action: 'adjust'; deltaBytes: number }
  | { action: 'extend'; days: number; from: 'expiry' | 'now' }
  | { action: 'attach' | 'detach'; interfaceIds: string[] };
export type BulkActionName = BulkWork['action'];

const DAY_MS = 86_400_000;

export interface ChunkTools {
  jobs: BulkJobsRepository;
  clients: ClientsRepository;
  provisioning: ProvisioningService;
  resellers: ResellerLimitsRepository;
}

export interface ChunkOutcome {
  /** Clients the chunk changed. */
  changed: number;
  /** Nodes whose desired state the chunk changed (bumped once, when the job ends). */
  nodes: string[];
  /** Clients left alone because the change would pass the starter's ceilings. */
  ceilingSkipped?: number;
}

/**
 * Why a job left the clients it did not change (done − changed) alone, by its action: the
 * toast says it ("2 skipped: they never expire") instead of a bare "0 of 2 changed".
 */
export function skipReason(work: BulkWork): SkipReason {
  switch (work.action) {
    case 'extend':
      // From their expiry: a client that never expires (or starts on first use and has not
      // started) has none to extend; from now, only the not-yet-started ones are left.
      return work.from === 'now' ? 'not-started' : 'no-expiry';
    case 'adjust':
      return 'unlimited-quota';
    case 'enable':
    case 'disable':
    case 'attach':
    case 'detach':
      return 'already';
    default:
      return 'gone'; // delete, purge, reset: only a client deleted meanwhile is left
  }
}

/**
 * Applies `work` to one chunk of clients inside the chunk's transaction. `jobTime` is the job's
 * clock, fixed at enqueue: every target value is computed from it, so a chunk run twice would
 * write the same values (and the done marks keep it from running twice anyway). Statuses are
 * recomputed against `now`, the moment the chunk runs.
 */
export async function applyChunk(
  em: EntityManager,
  tools: ChunkTools,
  work: BulkWork,
  ids: readonly string[],
  jobTime: Date,
  now: Date,
  starter: string | null,
): Promise<ChunkOutcome> {
  const clients = await tools.jobs.lockClients(em, ids);
  const present = clients.map((client) => client.id);
  switch (work.action) {
    case 'delete':
    case 'purge': {
      const nodes = await tools.clients.nodesOf(em, present);
      return { changed: await tools.jobs.deleteClients(em, present), nodes };
    }
    case 'attach': {
      // A reseller's allowed interfaces again (the owner may have narrowed them since the job was
      // started), under their limits row's lock, taken before the interfaces' as creates do.
      const account = starter !== null ? await tools.resellers.lockIfReseller(em, starter) : null;
      if (account && !mayUseAll(account, await tools.jobs.interfaceNodes(em, work.interfaceIds)))
        return { changed: 0, nodes: [], ceilingSkipped: present.length };
      return attach(em, tools, clients, work.interfaceIds, now);
    }
    case 'detach': {
      const byInterface = await tools.jobs.interfaceNodes(em, work.interfaceIds);
      const had = await tools.jobs.attachments(em, present, work.interfaceIds);
      const changed = await tools.jobs.detach(em, present, work.interfaceIds);
      return { changed, nodes: [...new Set(had.map((pair) => byInterface.get(pair.interfaceId)!))] };
    }
    case 'reset': {
      // A reseller's pool again: used up since the job was started, the rest is left alone.
      const account = starter !== null ? await tools.resellers.lockIfReseller(em, starter) : null;
      if (account && poolSpent(account)) return { changed: 0, nodes: [], ceilingSkipped: present.length };
      await tools.jobs.resetTraffic(em, present, jobTime);
      const writes = clients.map((client) => ({
        id: client.id,
        status: nextStatus(client.status, { ...client, usedBytes: 0 }, now),
      }));
      return write(em, tools, clients, writes, now, present.length, true);
    }
    default: {
      // A raise or an extension by a reseller: their ceilings again, under the lock creates take
      // (after the clients' rows: the order a reseller's change of one client locks in).
      const raises = (work.action === 'adjust' && work.deltaBytes > 0) || (work.action === 'extend' && work.days > 0);
      const account = raises && starter !== null ? await tools.resellers.lockIfReseller(em, starter) : null;
      const writes: ClientWrite[] = [];
      let ceilingSkipped = 0;
      for (const client of clients) {
        const next = target(client, work, jobTime, now);
        if (next && account && changePassesCeiling(account, next, now)) ceilingSkipped++;
        else if (next) writes.push(next);
      }
      return { ...(await write(em, tools, clients, writes, now, writes.length)), ceilingSkipped };
    }
  }
}

/** A client's new values under `work`, or null when it is left alone. */
function target(client: ChunkClient, work: BulkWork, jobTime: Date, now: Date): ClientWrite | null {
  const facts = { quotaBytes: client.quotaBytes, usedBytes: client.usedBytes, expiresAt: client.expiresAt };
  switch (work.action) {
    case 'enable':
    case 'disable': {
      const status = nextStatus(client.status, facts, now, work.action === 'enable');
      return status === client.status ? null : { id: client.id, status };
    }
    case 'adjust': {
      // 0 is "unlimited": an unlimited quota is not adjusted, and a lowered one stops at 1 byte.
      if (client.quotaBytes === 0) return null;
      const quotaBytes = Math.min(Number.MAX_SAFE_INTEGER, Math.max(1, client.quotaBytes + work.deltaBytes));
      return { id: client.id, quotaBytes, status: nextStatus(client.status, { ...facts, quotaBytes }, now) };
    }
    case 'extend': {
      // A client that starts on first use and has not started gets its expiry from that start.
      if (client.startOnFirstUse && client.activatedAt === null) return null;
      const base = work.from === 'now' ? jobTime : client.expiresAt;
      if (base === null) return null; // never expires: nothing to extend
      const expiresAt = new Date(base.getTime() + work.days * DAY_MS);
      return { id: client.id, expiresAt, status: nextStatus(client.status, { ...facts, expiresAt }, now) };
    }
    default:
      return null;
  }
}

async function write(
  em: EntityManager,
  tools: ChunkTools,
  clients: readonly ChunkClient[],
  writes: readonly ClientWrite[],
  now: Date,
  changed: number,
  usageReset = false,
): Promise<ChunkOutcome> {
  await tools.jobs.writeClients(em, writes, now);
  const before = new Map(clients.map((client) => [client.id, client]));
  const crossing = writes
    .filter((w) => {
      const was = before.get(w.id)!;
      const quota = { before: was.quotaBytes, after: w.quotaBytes ?? was.quotaBytes };
      return affectsPeers(was.status, w.status) || allowanceMoved(w.status, quota, usageReset && was.usedBytes > 0);
    })
    .map((w) => w.id);
  return { changed, nodes: await tools.clients.nodesOf(em, crossing) };
}

/** Attaches each client to the interfaces it lacks: an account per device per new interface. */
async function attach(
  em: EntityManager,
  tools: ChunkTools,
  clients: readonly ChunkClient[],
  interfaceIds: readonly string[],
  now: Date,
): Promise<ChunkOutcome> {
  const present = clients.map((client) => client.id);
  const interfaces = await tools.provisioning.lockInterfaces(em, interfaceIds);
  const had = await tools.jobs.attachments(em, present, interfaceIds);
  const changedClients = new Set<string>();
  const nodes = new Set<string>();
  for (const iface of interfaces) {
    const already = new Set(had.filter((pair) => pair.interfaceId === iface.id).map((pair) => pair.clientId));
    const lacking = present.filter((id) => !already.has(id));
    if (lacking.length === 0) continue;
    await tools.provisioning.createAccounts(em, await tools.jobs.devicesOf(em, lacking), [iface], now);
    await tools.jobs.attach(em, lacking, iface.id);
    for (const id of lacking) changedClients.add(id);
    nodes.add(iface.nodeId);
  }
  return { changed: changedClients.size, nodes: [...nodes] };
}
