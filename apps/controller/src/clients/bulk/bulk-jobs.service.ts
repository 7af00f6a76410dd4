import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import { UnrecoverableError, type Job } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { MANAGERS } from '#libs/contracts/user-roles.js';
import { scopeOf } from '../../auth/operator-scope.js';
import type { Principal } from '../../auth/principal.js';
import { withTimeout } from '../../common/with-timeout.js';
import { ApiError, badRequest, conflict, notFound } from '../../http/api-error.js';
import type { AnyWorker, QueueBackend } from '../../queue/queue-backend.js';
import { bumpRevisions } from '../../revisions/revisions.js';
import {
  checkExtension,
  checkPoolNotSpent,
  checkQuotaRaise,
  hideForbiddenInterfaces,
} from '../../resellers/ceilings.js';
import { ResellerLimitsRepository } from '../../resellers/reseller-limits.repository.js';
import { QUEUE_BACKEND } from '../../runtime.js';
import type { ClientFilter } from '../client-list.repository.js';
import { ClientTotals } from '../client-totals.js';
import { ClientsRepository } from '../clients.repository.js';
import { CLIENT_LIMITS } from '../dto/client.dto.js';
import type { ClientFilterDto, ClientSelectionDto } from '../dto/bulk.dto.js';
import { ProvisioningService } from '../provisioning.service.js';
import type { SkipReason } from '../dto/bulk.response.js';
import { applyChunk, skipReason, type BulkWork } from './bulk-actions.js';
import { BulkJobsRepository, type BulkJobRow } from './bulk-jobs.repository.js';

export const BULK_QUEUE = 'client-bulk';
/** Clients per transaction: big enough that 100,000 take few statements, small enough to lock briefly. */
const CHUNK = 1000;
const QUEUE_TIMEOUT_MS = 5000;
/** A job whose queue entry is gone or failed for good is ended by the sweep after this long. */
const ORPHAN_AFTER_MS = 60_000;
const SWEEP_EVERY_MS = 30_000;

export interface BulkJobView {
  id: string;
  action: string;
  state: 'waiting' | 'active' | 'completed' | 'failed';
  progress: { done: number; total: number; changed: number; skipped: number; skippedReason: SkipReason | null };
  error: string | null;
  startedAt: Date;
  finishedAt: Date | null;
}

/** Who asks: the acting user (a reseller's scope of clients joins the selection here, in `filterOf`). */
export type Actor = Pick<Principal, 'userId' | 'role'>;

/**
 * Bulk actions on clients as one BullMQ job each (docs/clients.md, "Bulk actions"). The selection
 * is fixed at enqueue time (client_bulk_items), in the request's transaction, so a bad one is
 * refused before anything changes. The worker takes it a chunk a transaction, marking each
 * chunk's clients done in the transaction that changes them, so a retry (a crash, a restart: the
 * job stalls and BullMQ hands it to a worker again) resumes where the last commit left it. The
 * nodes concerned are bumped once, when the job ends, whether it completes or fails.
 */
@Injectable()
export class BulkJobsService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('bulk');
  private worker?: AnyWorker;
  private sweepTimer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    @Inject(MikroORM) private readonly orm: MikroORM,
    @Inject(QUEUE_BACKEND) private readonly queues: QueueBackend,
    private readonly jobs: BulkJobsRepository,
    private readonly clients: ClientsRepository,
    private readonly provisioning: ProvisioningService,
    private readonly totals: ClientTotals,
    private readonly resellers: ResellerLimitsRepository,
  ) {}

  onApplicationBootstrap(): void {
    void this.startWorker();
  }

  onModuleDestroy(): void {
    this.stopped = true;
    clearInterval(this.sweepTimer);
    this.worker = undefined; // the queue store closes it (queue-backend.ts)
  }

  /** As the backups' worker: made once the store answers, so shutdown can always close it. */
  private async startWorker(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.queues.ping(2000);
        if (this.stopped) return;
        // A controller killed mid-job holds its lock at most 15 s; the job then goes to the next
        // worker that checks (every 30 s, BullMQ's default: a shorter interval leaves a check in
        // flight at shutdown, retrying on a closed connection), up to 20 times before BullMQ
        // gives up on it.
        this.worker = this.queues.worker(BULK_QUEUE, (job) => this.process(job as Job<{ id: string }>), {
          lockDuration: 15_000,
          maxStalledCount: 20,
        });
        this.sweepTimer = setInterval(() => void this.sweep().catch(() => undefined), SWEEP_EVERY_MS);
        this.sweepTimer.unref();
        void this.sweep().catch(() => undefined);
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 30_000).unref());
      }
    }
  }

  private get queue() {
    return this.queues.queue(BULK_QUEUE);
  }

  private bounded<T>(operation: Promise<T>): Promise<T> {
    return withTimeout(operation, QUEUE_TIMEOUT_MS, `the ${this.queues.kind} queue store`).catch((error: Error) => {
      throw new ApiError(503, `${error.message}: bulk actions are unavailable until it answers`);
    });
  }

  /**
   * The selection as the clients' one filter. Here, and only here, a reseller's scope of clients
   * narrows it (`actor`), for every bulk route, the groups' and GET /api/clients/ids alike: another
   * operator's client id then selects nothing, and is refused as a made-up one is.
   */
  filterOf(actor: Actor, selection: ClientSelectionDto): ClientFilter {
    if (selection.ids !== undefined && selection.filter !== undefined)
      throw badRequest('give ids or filter, not both', 'filter');
    if (selection.ids === undefined && selection.filter === undefined)
      throw badRequest('give ids (client ids) or filter (the list query; {} selects every client)', 'ids');
    const chosen = selection.ids !== undefined ? { ids: selection.ids } : listFilter(selection.filter!);
    return { ...chosen, ...this.scopeOf(actor) };
  }

  /** The clients `actor` may act on at all: a reseller's own, everyone else's every client. */
  scopeOf(actor: Actor): ClientFilter {
    const { ownerId } = scopeOf(actor);
    return ownerId === null ? {} : { ownerId };
  }

  /** The ids a filter selects (GET /api/clients/ids), through the same filter as the jobs. */
  filterFromQuery(actor: Actor, query: ClientFilterDto): ClientFilter {
    return this.filterOf(actor, { filter: query });
  }

  /** Makes the job and its selection, refusing a bad one with nothing changed; then enqueues it. */
  async start(
    actor: Actor,
    work: BulkWork,
    selection: ClientSelectionDto,
    narrow?: Partial<ClientFilter>,
  ): Promise<BulkJobView> {
    const filter = { ...this.filterOf(actor, selection), ...narrow };
    const id = randomUUID();
    const startedAt = new Date();
    await this.orm.em.fork().transactional(async (em) => {
      if (work.action === 'attach' || work.action === 'detach') {
        const known = await this.jobs.interfaceNodes(em, work.interfaceIds);
        const missing = work.interfaceIds.find((interfaceId) => !known.has(interfaceId));
        if (missing) throw notFound(`interface ${missing} not found`, 'interfaceIds');
      }
      const total = await this.jobs.create(
        em,
        { id, action: work.action, params: { ...work }, userId: actor.userId, startedAt },
        filter,
      );
      if (selection.ids && total !== selection.ids.length)
        throw notFound(`${selection.ids.length - total} of the ids name no client`, 'ids');
      if (scopeOf(actor).ceilings) await this.checkCeilings(em, actor, id, work, startedAt);
      if (work.action === 'attach' || work.action === 'detach') {
        const over = await this.jobs.interfaceCountViolations(
          em,
          id,
          work.interfaceIds,
          work.action,
          CLIENT_LIMITS.interfaces,
        );
        if (over > 0)
          throw conflict(
            work.action === 'attach'
              ? `${over} of the selected clients would have more than ${CLIENT_LIMITS.interfaces} interfaces`
              : `${over} of the selected clients would be left with no interface; a client needs one`,
            'interfaceIds',
          );
      }
    });
    try {
      await this.bounded(
        this.queue.add(
          'bulk',
          { id },
          {
            jobId: id,
            attempts: 3,
            backoff: { type: 'fixed', delay: 2000 },
            removeOnComplete: { age: 86_400 },
            removeOnFail: { age: 86_400 },
          },
        ),
      );
    } catch (error) {
      // Never enqueued: the record goes too, so nothing claims a job that will not run.
      await this.orm.em.fork().transactional((em) => this.jobs.discard(em, id));
      throw error;
    }
    return this.get(id, actor);
  }

  /**
   * A reseller's job must keep their clients within the ceilings the owner set (docs/operators.md,
   * "Ceilings"), checked over the selection just fixed, under their limits row's lock as a create
   * is: a quota raise, an extension, new interfaces, a traffic reset once the pool is used up.
   */
  private async checkCeilings(em: EntityManager, actor: Actor, id: string, work: BulkWork, now: Date): Promise<void> {
    const account = await this.resellers.lock(em, actor.userId);
    if (work.action === 'reset') checkPoolNotSpent(account);
    if (work.action === 'attach') {
      const nodeOf = await this.jobs.interfaceNodes(em, work.interfaceIds);
      hideForbiddenInterfaces(
        account,
        work.interfaceIds.map((interfaceId) => ({ id: interfaceId, nodeId: nodeOf.get(interfaceId)! })),
      );
    }
    if (work.action === 'adjust' || work.action === 'extend') {
      const { largestQuota, latestExpiry } = await this.jobs.selectionExtremes(em, id);
      if (work.action === 'adjust') checkQuotaRaise(account, largestQuota, work.deltaBytes);
      else checkExtension(account, work.from === 'now' ? now : latestExpiry, work.days, now);
    }
  }

  /**
   * A job, to whoever started it, or to an owner or admin (who see every client); anyone else's
   * answers as a made-up id does.
   */
  async get(id: string, actor: Actor): Promise<BulkJobView> {
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id))
      throw notFound('job not found', 'id');
    let row = await this.jobs.find(this.orm.em.fork(), id);
    if (!row || (row.userId !== actor.userId && !MANAGERS.includes(actor.role))) throw notFound('job not found', 'id');
    let state: BulkJobView['state'] = 'waiting';
    if (!row.finishedAt) {
      const queued = await this.bounded(this.queue.getJobState(id));
      if (queued === 'active') state = 'active';
      else if (queued === 'failed' || queued === 'unknown' || queued === 'completed') {
        // The queue is done with it but the job never ended itself (gave up after stalls, lost
        // with a store's data): end it now, bumping its nodes for what it did.
        if (Date.now() - row.startedAt.getTime() > ORPHAN_AFTER_MS || queued !== 'unknown') {
          await this.endOrphan(row, queued);
          row = (await this.jobs.find(this.orm.em.fork(), id))!;
        }
      }
    }
    return view(row, state);
  }

  /** Ends jobs the queue no longer runs (see get). */
  private async sweep(): Promise<void> {
    for (const row of await this.jobs.unfinished(this.orm.em.fork())) {
      if (Date.now() - row.startedAt.getTime() < ORPHAN_AFTER_MS) continue;
      const queued = await this.queue.getJobState(row.id);
      if (queued === 'failed' || queued === 'unknown' || queued === 'completed') await this.endOrphan(row, queued);
    }
  }

  private async endOrphan(row: BulkJobRow, queued: string): Promise<void> {
    const job = queued === 'unknown' ? undefined : await this.queue.getJob(row.id);
    const reason = job?.failedReason ?? 'the queue no longer holds the job (its store lost it)';
    await this.finish(row.id, `interrupted: ${reason}`);
  }

  private async process(job: Job<{ id: string }>): Promise<unknown> {
    const id = job.data.id;
    const row = await this.jobs.find(this.orm.em.fork(), id);
    if (!row) throw new UnrecoverableError(`bulk job ${id} has no record`);
    if (row.finishedAt) return { done: row.done, total: row.total, changed: row.changed };
    const work = row.params as unknown as BulkWork;
    const tools = {
      jobs: this.jobs,
      clients: this.clients,
      provisioning: this.provisioning,
      resellers: this.resellers,
    };
    try {
      for (;;) {
        const progress = await this.orm.em.fork().transactional(async (em) => {
          const ids = await this.jobs.nextChunk(em, id, CHUNK);
          if (ids.length === 0) return null;
          const now = new Date();
          const outcome = await applyChunk(em, tools, work, ids, row.startedAt, now, row.userId);
          return this.jobs.chunkDone(em, id, ids, outcome, now);
        });
        if (!progress) break;
        this.totals.changed();
        await job.updateProgress(progress);
      }
      await this.finish(id, null);
      const done = (await this.jobs.find(this.orm.em.fork(), id))!;
      this.logger.log(`bulk ${work.action}: ${done.changed} of ${done.total} clients changed`);
      return { done: done.done, total: done.total, changed: done.changed };
    } catch (error) {
      // The last attempt ends the job: what it did stands, reported, and its nodes are bumped.
      if (error instanceof UnrecoverableError || job.attemptsMade + 1 >= (job.opts.attempts ?? 1))
        await this.finish(id, (error as Error).message).catch(() => undefined);
      throw error;
    }
  }

  /** Ends the job once: its outcome recorded and every node it touched bumped, in one transaction. */
  private async finish(id: string, error: string | null): Promise<void> {
    await this.orm.em.fork().transactional(async (em) => {
      const nodes = await this.jobs.finish(em, id, error, new Date());
      if (nodes) await bumpRevisions(em, nodes);
    });
    this.totals.changed();
  }
}

function listFilter(filter: ClientFilterDto): ClientFilter {
  return {
    search: filter.search?.trim() || undefined,
    status: filter.status,
    group: filter.group,
    interfaceId: filter.interfaceId,
  };
}

function view(row: BulkJobRow, queued: BulkJobView['state']): BulkJobView {
  return {
    id: row.id,
    action: row.action,
    state: row.finishedAt ? (row.error ? 'failed' : 'completed') : queued,
    progress: {
      done: row.done,
      total: row.total,
      changed: row.changed,
      skipped: row.done - row.changed,
      skippedReason:
        row.done <= row.changed
          ? null
          : Number(row.params.ceilingSkipped ?? 0) > 0
            ? 'ceiling'
            : skipReason(row.params as unknown as BulkWork),
    },
    error: row.error,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
  };
}
