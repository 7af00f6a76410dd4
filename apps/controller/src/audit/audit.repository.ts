import { Inject, Injectable } from '@nestjs/common';
import { MikroORM, type InferKyselyDB } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import type { AuditChange, AuditOutcome, AuditVia } from '#libs/contracts/audit.js';
import { PREPARED_POOL } from '../runtime.js';
import { AuditEntry } from './audit-entry.entity.js';

type AuditDb = InferKyselyDB<typeof AuditEntry>;

/** What runs the two statements every recorded change costs: the panel's PreparedPool, or the CLI's. */
export interface StatementRunner {
  query<T>(name: string, text: string, values: unknown[]): Promise<T[]>;
}

/** An entry as it is opened, before the change starts. */
export interface OpenedEntry {
  id: string;
  /** When the request began (the insert's now() when absent). */
  at?: Date;
  actorId: string | null;
  actorName: string | null;
  actorRole: string | null;
  via: AuditVia;
  credentialId: string | null;
  action: string;
  method: string;
  route: string;
  targetType: string | null;
  targetId: string | null;
  targetName: string | null;
  changes: AuditChange[];
  address: string | null;
  userAgent: string | null;
  requestId: string | null;
}

/** How it ended; null fields keep what was opened. */
export interface SettledEntry {
  outcome: Exclude<AuditOutcome, 'pending'>;
  status: number | null;
  error: string | null;
  /** The refusal's stable code (auditErrorCode), which the web panel words in its own language; null on success. */
  errorCode: string | null;
  targetId: string | null;
  targetName: string | null;
  changes: AuditChange[];
  actorId: string | null;
  actorRole: string | null;
}

export interface AuditFilter {
  actor?: string;
  targetType?: string;
  targetId?: string;
  action?: string;
  outcome?: AuditOutcome;
  from?: Date;
  to?: Date;
  /** Entries strictly older than this position (newest first). */
  after?: { at: string; id: string };
  limit: number;
}

/** An entry as the log holds it: what was opened, and how it ended. */
export interface AuditRow extends OpenedEntry {
  at: Date;
  /** `at` exactly as PostgreSQL prints it (microseconds), for the cursor. */
  atKey: string;
  finishedAt: Date | null;
  credentialName: string | null;
  outcome: AuditOutcome;
  status: number | null;
  error: string | null;
  errorCode: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The two writes of every recorded change, as named prepared statements: they run on every
 * request that changes something, and the prepared path costs a fraction of the ORM's per
 * statement (docs/benchmarks.md, "Audit write"). The token's name is read by the insert itself
 * (api_tokens belongs to tokens/, read here by name), so authentication carries nothing extra.
 */
export async function openEntry(runner: StatementRunner, entry: OpenedEntry): Promise<void> {
  await runner.query(
    'audit_open',
    `insert into audit_entries (id, at, actor_id, actor_name, actor_role, via, credential_id, credential_name, action, method,
            route, target_type, target_id, target_name, changes, outcome, address, user_agent, request_id)
     values ($1::uuid, now(), $2::uuid, $3::text, $4::text, $5::text, $6::uuid,
             case when $5::text = 'token' then (select name from api_tokens where id = $6::uuid) end,
             $7::text, $8::text, $9::text, $10::text, $11::text, $12::text, $13::jsonb, 'pending', $14::text, $15::text, $16::text)`,
    [
      entry.id,
      entry.actorId,
      entry.actorName,
      entry.actorRole,
      entry.via,
      entry.credentialId,
      entry.action,
      entry.method,
      entry.route,
      entry.targetType,
      entry.targetId,
      entry.targetName,
      JSON.stringify(entry.changes),
      entry.address,
      entry.userAgent,
      entry.requestId,
    ],
  );
}

export async function settleEntry(runner: StatementRunner, id: string, settled: SettledEntry): Promise<void> {
  await runner.query(
    'audit_settle',
    `update audit_entries
        set finished_at = now(), outcome = $2::text, status = $3::int, error = $4::text, error_code = $10::text,
            target_id = coalesce($5::text, target_id), target_name = coalesce($6::text, target_name),
            changes = $7::jsonb, actor_id = coalesce(actor_id, $8::uuid), actor_role = coalesce(actor_role, $9::text)
      where id = $1::uuid and outcome = 'pending'`,
    [
      id,
      settled.outcome,
      settled.status,
      settled.error,
      settled.targetId,
      settled.targetName,
      JSON.stringify(settled.changes),
      settled.actorId,
      settled.actorRole,
      settled.errorCode,
    ],
  );
}

/** A whole entry, written once (docs/audit.md, "One write, in the change's transaction"). */
export interface RecordedEntry extends OpenedEntry, SettledEntry {
  at: Date;
}

/** The one insert of a whole entry: the text and values, run on the change's transaction or the pool. */
export function recordStatement(entry: RecordedEntry): { name: string; text: string; values: unknown[] } {
  return {
    name: 'audit_record',
    text: `insert into audit_entries (id, at, finished_at, actor_id, actor_name, actor_role, via, credential_id, credential_name,
            action, method, route, target_type, target_id, target_name, changes, outcome, status, error, address, user_agent,
            request_id, error_code)
     values ($1::uuid, $2::timestamptz, now(), $3::uuid, $4::text, $5::text, $6::text, $7::uuid,
             case when $6::text = 'token' then (select name from api_tokens where id = $7::uuid) end,
             $8::text, $9::text, $10::text, $11::text, $12::text, $13::text, $14::jsonb, $15::text, $16::int, $17::text,
             $18::text, $19::text, $20::text, $21::text)`,
    values: [
      entry.id,
      entry.at,
      entry.actorId,
      entry.actorName,
      entry.actorRole,
      entry.via,
      entry.credentialId,
      entry.action,
      entry.method,
      entry.route,
      entry.targetType,
      entry.targetId,
      entry.targetName,
      JSON.stringify(entry.changes),
      entry.outcome,
      entry.status,
      entry.error,
      entry.address,
      entry.userAgent,
      entry.requestId,
      entry.errorCode,
    ],
  };
}

/**
 * Corrects an entry written in the change's transaction when the answer said more (a stored
 * value the request did not send) or something else (a failure after the commit).
 */
export async function amendEntry(runner: StatementRunner, id: string, settled: SettledEntry): Promise<void> {
  await runner.query(
    'audit_amend',
    `update audit_entries
        set finished_at = now(), outcome = $2::text, status = $3::int, error = $4::text, error_code = $10::text,
            target_id = coalesce($5::text, target_id), target_name = coalesce($6::text, target_name),
            changes = $7::jsonb, actor_id = coalesce(actor_id, $8::uuid), actor_role = coalesce(actor_role, $9::text)
      where id = $1::uuid`,
    [
      id,
      settled.outcome,
      settled.status,
      settled.error,
      settled.targetId,
      settled.targetName,
      JSON.stringify(settled.changes),
      settled.actorId,
      settled.actorRole,
      settled.errorCode,
    ],
  );
}

/** Reading the log, retention and the settling of entries a stopped panel left pending. */
@Injectable()
export class AuditRepository {
  constructor(
    @Inject(MikroORM) private readonly orm: MikroORM,
    @Inject(PREPARED_POOL) readonly statements: StatementRunner,
  ) {}

  async list(filter: AuditFilter): Promise<AuditRow[]> {
    let query = this.orm.em
      .fork()
      .getKysely<AuditDb>()
      .selectFrom('audit_entries')
      .selectAll()
      .select(sql<string>`at::text`.as('at_key'));
    if (filter.actor !== undefined)
      query = UUID.test(filter.actor)
        ? query.where('actor_id', '=', filter.actor)
        : query.where((eb) => eb(eb.fn('lower', ['actor_name']), '=', filter.actor!.toLowerCase()));
    if (filter.targetType !== undefined) query = query.where('target_type', '=', filter.targetType);
    if (filter.targetId !== undefined) query = query.where('target_id', '=', filter.targetId);
    if (filter.action !== undefined) query = query.where('action', '=', filter.action);
    if (filter.outcome !== undefined) query = query.where('outcome', '=', filter.outcome);
    if (filter.from !== undefined) query = query.where('at', '>=', filter.from);
    if (filter.to !== undefined) query = query.where('at', '<', filter.to);
    if (filter.after)
      query = query.where(sql<boolean>`(at, id) < (${filter.after.at}::timestamptz, ${filter.after.id}::uuid)`);
    const rows = await query.orderBy('at', 'desc').orderBy('id', 'desc').limit(filter.limit).execute();
    return rows.map((row) => ({
      id: row.id,
      at: new Date(row.at),
      atKey: row.at_key,
      finishedAt: row.finished_at === null ? null : new Date(row.finished_at),
      actorId: row.actor_id,
      actorName: row.actor_name,
      actorRole: row.actor_role,
      via: row.via as AuditVia,
      credentialId: row.credential_id,
      credentialName: row.credential_name,
      action: row.action,
      method: row.method,
      route: row.route,
      targetType: row.target_type,
      targetId: row.target_id,
      targetName: row.target_name,
      changes: row.changes as AuditChange[],
      outcome: row.outcome as AuditOutcome,
      status: row.status,
      error: row.error,
      errorCode: row.error_code,
      address: row.address,
      userAgent: row.user_agent,
      requestId: row.request_id,
    }));
  }

  /**
   * Deletes settled entries older than `before`, a batch at a time (a first run over a long log
   * must not hold one huge delete); returns how many went.
   */
  async prune(before: Date, batch = 5000): Promise<number> {
    const db = this.orm.em.fork().getKysely<AuditDb>();
    let total = 0;
    for (;;) {
      const result = await db
        .deleteFrom('audit_entries')
        .where(
          'id',
          'in',
          db
            .selectFrom('audit_entries')
            .select('id')
            .where('at', '<', before)
            .where('outcome', '<>', 'pending')
            .limit(batch),
        )
        .executeTakeFirst();
      const deleted = Number(result.numDeletedRows);
      total += deleted;
      if (deleted < batch) return total;
    }
  }

  /** Entries still pending since before `before`: their panel stopped before answering. */
  async settleAbandoned(before: Date): Promise<number> {
    const result = await this.orm.em
      .fork()
      .getKysely<AuditDb>()
      .updateTable('audit_entries')
      .set({ outcome: 'unknown', finished_at: sql`now()` })
      .where('outcome', '=', 'pending')
      .where('at', '<', before)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }
}
