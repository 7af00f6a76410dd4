import { AsyncLocalStorage } from 'node:async_hooks';
import type { EventSubscriber, TransactionEventArgs } from '@mikro-orm/core';
import { CompiledQuery } from 'kysely';

/** Runs one statement inside the transaction being committed. */
export type InTransaction = (text: string, values: readonly unknown[]) => Promise<void>;

/**
 * What a request writes into the first transaction it commits: its audit entry (docs/audit.md,
 * "One write, in the change's transaction"). The change and its record then commit together or
 * not at all, in one commit instead of two.
 */
export interface ChangeRecord {
  /** Called once, just before the request's first transaction commits, on that transaction. */
  beforeCommit(run: InTransaction): Promise<void>;
  /** That transaction committed: the record is in the database. */
  committed(): void;
  /** That transaction rolled back: the record went with it. */
  rolledBack(): void;
  /** The request has been answered: later transactions in its async context write nothing. */
  readonly closed: boolean;
  /** The target a create made, named by its service inside the transaction. */
  created?: { id: string; name: string | null };
}

const current = new AsyncLocalStorage<ChangeRecord>();

/** Runs `work` (and everything it starts) with `record` as the request's change record. */
export function withChangeRecord<T>(record: ChangeRecord, work: () => T): T {
  return current.run(record, work);
}

/**
 * A service that creates something names it here, inside its transaction, so the audit entry
 * written into that transaction already names the new target (no second write after the answer).
 * Outside a recorded request it does nothing.
 */
export function nameCreatedTarget(id: string, name: string | null): void {
  const record = current.getStore();
  if (record && !record.closed) record.created = { id, name };
}

type Transaction = NonNullable<TransactionEventArgs['transaction']>;

/**
 * The MikroORM hook that writes the current request's record into its transaction. Savepoints
 * (nested transactions) are skipped: only the outermost commit makes anything durable.
 */
export class ChangeRecordSubscriber implements EventSubscriber {
  private readonly writing = new WeakMap<Transaction, ChangeRecord>();

  async beforeTransactionCommit(args: TransactionEventArgs): Promise<void> {
    const transaction = args.transaction;
    const record = current.getStore();
    if (!transaction || !record || record.closed || 'savepointName' in transaction) return;
    this.writing.set(transaction, record);
    await record.beforeCommit(async (text, values) => {
      await transaction.executeQuery(CompiledQuery.raw(text, [...values]));
    });
  }

  afterTransactionCommit(args: TransactionEventArgs): void {
    const record = args.transaction && this.writing.get(args.transaction);
    if (record) record.committed();
  }

  afterTransactionRollback(args: TransactionEventArgs): void {
    const record = args.transaction && this.writing.get(args.transaction);
    if (record) record.rolledBack();
  }
}
