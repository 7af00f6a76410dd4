import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { AuditChange } from '#libs/contracts/audit.js';
import type { Principal } from '../auth/principal.js';
import type { WarrenConfig } from '../config/config.js';
import { ApiError } from '../http/api-error.js';
import { toErrorResponse } from '../http/error-response.js';
import { WARREN_CONFIG } from '../runtime.js';
import { nameOf, removedFields, requestedChanges } from './audit-changes.js';
import type { AuditedRoute } from './audited-route.js';
import { withChangeRecord, type ChangeRecord } from '../database/change-record.js';
import {
  amendEntry,
  AuditRepository,
  openEntry,
  recordStatement,
  settleEntry,
  type OpenedEntry,
  type RecordedEntry,
  type SettledEntry,
} from './audit.repository.js';
import { AuditTargets } from './audit-targets.js';
import { auditErrorCode } from './audit-error-code.js';

/** One request being recorded: opened before the handler runs, settled once when it is answered. */
export interface OpenRecord {
  /** Runs the handler (its observable's creation binds the async context the handler runs in). */
  run<T>(work: () => T): T;
  succeeded(response: unknown, status: number): Promise<void>;
  failed(error: unknown): Promise<void>;
}

const NOTHING: OpenRecord = { run: (work) => work(), succeeded: async () => undefined, failed: async () => undefined };

/** The entry as opened, completed with how it ended (null fields keep what was opened). */
const wholeEntry = (opened: OpenedEntry & { at: Date }, settled: SettledEntry): RecordedEntry => ({
  ...opened,
  ...settled,
  targetId: settled.targetId ?? opened.targetId,
  targetName: settled.targetName ?? opened.targetName,
  actorId: opened.actorId ?? settled.actorId,
  actorRole: opened.actorRole ?? settled.actorRole,
});

/** Whether the entry written at commit already says how the request ended. */
const sameEnding = (written: RecordedEntry, final: RecordedEntry): boolean =>
  written.outcome === final.outcome &&
  written.status === final.status &&
  written.error === final.error &&
  written.errorCode === final.errorCode &&
  written.targetId === final.targetId &&
  written.targetName === final.targetName &&
  written.actorId === final.actorId &&
  written.actorRole === final.actorRole &&
  isDeepStrictEqual(written.changes, final.changes);

/** Control characters and over-long text never reach the log's columns. */
const text = (value: unknown, max: number): string | null =>
  typeof value === 'string' && value.length > 0 ? value.replace(/[\u0000-\u001f\u007f]/g, ' ').slice(0, max) : null;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A JSON body; an upload's stream (backups/upload) is not one. */
const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  isRecord(value) && [Object.prototype, null].includes(Object.getPrototypeOf(value) as object | null);

/**
 * Records the requests of every audited route (docs/audit.md, "Why before and after"): the entry
 * is committed as `pending` before the handler runs, with what was asked for, then settled with
 * the outcome and the fields' old → new values. A change therefore never happens without an
 * entry: a crash between the two leaves the pending one, which maintenance marks `unknown`.
 * When the entry cannot be written the request is refused (the error propagates: 500/503) and
 * nothing changes.
 */
@Injectable()
export class AuditRecorder implements OnApplicationBootstrap {
  private readonly logger = new Logger('audit');

  constructor(
    private readonly repository: AuditRepository,
    private readonly targets: AuditTargets,
    @Inject(WARREN_CONFIG) private readonly config: WarrenConfig,
  ) {}

  /** A panel started with WARREN_AUDIT=off says so, on its output and in the log itself: the gap is on record. */
  async onApplicationBootstrap(): Promise<void> {
    if (this.config.audit) return;
    this.logger.warn('WARREN_AUDIT=off: this controller records nothing in the audit log (for benchmarks only)');
    const id = randomUUID();
    const entry = {
      id,
      actorId: null,
      actorName: null,
      actorRole: null,
      via: 'system' as const,
      credentialId: null,
      action: 'audit.off',
      method: 'START',
      route: 'WARREN_AUDIT=off',
      targetType: null,
      targetId: null,
      targetName: null,
      changes: [],
      address: null,
      userAgent: null,
      requestId: null,
    };
    await openEntry(this.repository.statements, entry);
    await settleEntry(this.repository.statements, id, {
      outcome: 'success',
      status: null,
      error: null,
      errorCode: null,
      targetId: null,
      targetName: null,
      changes: [],
      actorId: null,
      actorRole: null,
    });
  }

  async open(route: AuditedRoute, request: FastifyRequest & { principal?: Principal }): Promise<OpenRecord> {
    if (!this.config.audit) return NOTHING;
    const principal = request.principal;
    const params = (request.params ?? {}) as Record<string, string>;
    const targetId = route.idParam
      ? (text(params[route.idParam], 128) ?? null)
      : route.self
        ? (principal?.userId ?? null)
        : null;
    const body: unknown = isJsonObject(request.body) ? request.body : undefined;
    const changesTarget = request.method === 'PATCH' || request.method === 'PUT' || request.method === 'DELETE';
    // The target as it was, for old values: only when the call changes the target the path names.
    const before = changesTarget ? await this.targets.read(route.targetType, targetId) : null;
    // An action on a target the path names (POST outbounds/{id}/check): no old values, but its
    // name, so the log reads "direct" and not only its id.
    const actedName = !changesTarget && route.idParam ? await this.targets.name(route.targetType, targetId) : null;
    const requested = (): AuditChange[] => (route.fields ? requestedChanges(body, before, null) : []);
    const opened: OpenedEntry & { at: Date } = {
      id: randomUUID(),
      at: new Date(),
      actorId: principal?.userId ?? null,
      // A sign-in has no principal yet: the name it gave (whether or not it exists).
      actorName: principal?.username ?? text(isRecord(body) ? body.username : undefined, 256),
      actorRole: principal?.role ?? null,
      via: principal?.via ?? 'public',
      credentialId: principal?.credentialId ?? null,
      action: route.action,
      method: request.method,
      route: route.route,
      targetType: route.targetType,
      targetId,
      targetName: nameOf(before) ?? actedName ?? (route.self ? (principal?.username ?? null) : null),
      changes: requested(),
      address: text(request.ip, 64),
      userAgent: text(request.headers['user-agent'], 512),
      requestId: text(request.id, 128),
    };
    const answered = (response: unknown, status: number): SettledEntry => {
      // A create names its target by the id it answers with.
      const created = targetId === null && !route.self && isRecord(response) && typeof response.id === 'string';
      const user = isRecord(response) && isRecord(response.user) ? response.user : null;
      const signedIn = !principal && route.self && user && typeof user.id === 'string' ? user.id : null;
      return {
        // A sign-in whose password was right but that was asked for its code is not one yet.
        outcome:
          isRecord(response) && response.needCode === true ? 'awaiting-code' : status === 202 ? 'accepted' : 'success',
        status,
        error: null,
        errorCode: null,
        targetId: created ? (response as { id: string }).id : signedIn,
        targetName: created ? nameOf(response) : signedIn ? nameOf(user) : null,
        changes: !route.fields
          ? []
          : request.method === 'DELETE'
            ? removedFields(before)
            : requestedChanges(body, before, changesTarget || created ? response : null),
        // A sign-in learns who it was.
        actorId: !principal && user && typeof user.id === 'string' ? user.id : null,
        actorRole: !principal && user && typeof user.role === 'string' ? user.role : null,
      };
    };
    const refused = (error: unknown): SettledEntry => {
      const answer = toErrorResponse(error);
      return {
        outcome: answer.status >= 500 ? 'failed' : 'refused',
        status: answer.status,
        error: text(answer.body.error, 512),
        errorCode: auditErrorCode(answer.status, answer.body),
        targetId: null,
        targetName: null,
        changes: requested(),
        actorId: null,
        actorRole: null,
      };
    };
    if (route.beforeAnswer) {
      const record = async (settled: SettledEntry) => {
        const statement = recordStatement(wholeEntry(opened, settled));
        await this.repository.statements.query(statement.name, statement.text, statement.values);
      };
      return {
        run: (work) => work(),
        // Not written: the request fails (500) and its answer (a session token) never goes out.
        succeeded: (response, status) => record(answered(response, status)),
        failed: async (error) => {
          if (error instanceof ApiError && error.unrecorded) return;
          await record(refused(error)).catch((failure: unknown) =>
            this.logger.error(`audit entry ${opened.id} could not be written: ${(failure as Error).message}`),
          );
        },
      };
    }
    if (route.inChangeTransaction) {
      const atCommit = () => (!route.fields ? [] : request.method === 'DELETE' ? removedFields(before) : requested());
      return this.writtenWithChange(route, opened, atCommit, answered, refused);
    }

    await openEntry(this.repository.statements, opened);
    const settle = async (settled: SettledEntry) => {
      try {
        await settleEntry(this.repository.statements, opened.id, settled);
      } catch (error) {
        // The entry stays pending and is settled as unknown later; the answer is not held back.
        this.logger.error(`audit entry ${opened.id} could not be settled: ${(error as Error).message}`);
      }
    };
    return {
      run: (work) => work(),
      succeeded: (response, status) => settle(answered(response, status)),
      failed: (error) => settle(refused(error)),
    };
  }

  /**
   * The one-write path (docs/audit.md, "One write, in the change's transaction"): the entry is
   * inserted inside the handler's first committing transaction, as the change that committed
   * (`success`, with the fields asked for); after the answer nothing more is written unless the
   * answer adds to it (a stored value the request did not send: one update) or no transaction
   * committed (a refusal, a change of nothing: one insert then).
   */
  private writtenWithChange(
    route: AuditedRoute,
    opened: OpenedEntry & { at: Date },
    changesAtCommit: () => AuditChange[],
    answered: (response: unknown, status: number) => SettledEntry,
    refused: (error: unknown) => SettledEntry,
  ): OpenRecord {
    let state: 'none' | 'writing' | 'committed' = 'none';
    let closed = false;
    let written: RecordedEntry | null = null;
    const whole = (settled: SettledEntry) => wholeEntry(opened, settled);
    const record: ChangeRecord = {
      get closed() {
        return closed;
      },
      beforeCommit: async (run) => {
        if (state !== 'none') return;
        state = 'writing';
        written = whole({
          outcome: route.status === 202 ? 'accepted' : 'success',
          status: route.status,
          error: null,
          errorCode: null,
          targetId: record.created?.id ?? null,
          targetName: record.created?.name ?? null,
          changes: changesAtCommit(),
          actorId: null,
          actorRole: null,
        });
        const statement = recordStatement(written);
        await run(statement.text, statement.values);
      },
      committed: () => {
        if (state === 'writing') state = 'committed';
      },
      rolledBack: () => {
        if (state !== 'writing') return;
        state = 'none';
        written = null;
      },
    };
    const finish = async (settled: SettledEntry) => {
      closed = true;
      const final = whole(settled);
      try {
        if (state === 'committed' && written) {
          if (sameEnding(written, final)) return;
          await amendEntry(this.repository.statements, opened.id, final);
        } else {
          const statement = recordStatement(final);
          await this.repository.statements.query(statement.name, statement.text, statement.values);
        }
      } catch (error) {
        this.logger.error(`audit entry ${opened.id} could not be written: ${(error as Error).message}`);
      }
    };
    return {
      run: (work) => withChangeRecord(record, work),
      succeeded: (response, status) => finish(answered(response, status)),
      failed: (error) => finish(refused(error)),
    };
  }
}
