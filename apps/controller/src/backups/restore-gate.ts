import type { EventSubscriber, TransactionEventArgs } from '@mikro-orm/core';

/**
 * The gate between a restore and the panel's writes. Every ORM transaction takes the gate's
 * advisory lock shared as its first statement (a subscriber on the ORM's transactions, so no
 * writer needs to remember it); a restore takes it exclusively before it locks any table. While
 * a restore waits for the gate, new transactions queue behind it holding nothing, so no writer
 * is half-way through its tables when the restore takes them (which deadlocked: issue 19, item
 * 13); once the restore commits, they go on, on the restored tables. One round trip per
 * transaction, shared locks never wait on each other.
 */
export const RESTORE_GATE_KEY = `hashtext('warren.restore')`;

export class RestoreGate implements EventSubscriber {
  async afterTransactionStart({ em, transaction }: TransactionEventArgs): Promise<void> {
    // A savepoint is inside a transaction that took the gate already.
    if ((transaction as { savepointName?: string } | undefined)?.savepointName) return;
    await em
      .getConnection()
      .execute(`select pg_advisory_xact_lock_shared(${RESTORE_GATE_KEY})`, [], 'run', transaction);
  }
}
