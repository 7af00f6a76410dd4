/**
 * How the panel's table upkeep (system/table-upkeep.ts) gives way to a migration or a restore,
 * as PostgreSQL's autovacuum does by itself: a VACUUM holds its table's SHARE UPDATE EXCLUSIVE
 * lock for as long as it runs, and an ALTER, DROP or `lock table … in access exclusive mode`
 * queues behind it (and every request touching the table queues behind that). PostgreSQL cancels
 * an autovacuum worker that blocks such a lock; a manual VACUUM it does not, so the panel does.
 *
 * The upkeep's connection carries TABLE_UPKEEP_APPLICATION, and takes the upkeep lock shared
 * (try, never waiting) before each table. Whoever needs the tables takes that lock exclusively
 * and cancels the upkeep's statements meanwhile: from then on no upkeep starts another table
 * (a shared try fails while the exclusive is held), and the one running stops at once.
 */
export const TABLE_UPKEEP_APPLICATION = 'warren table upkeep';

/**
 * The two-key form: its key space is apart from the one-key locks BullMQ takes per failed job
 * (`hashtext('bullmq:parent:…')`), which a job id could otherwise collide with.
 */
const UPKEEP_LOCK = `hashtext('warren'), hashtext('table-upkeep')`;

/** The upkeep's turn for one table: false while a migration or a restore holds the tables. */
export const TAKE_UPKEEP_TURN = `select pg_try_advisory_lock_shared(${UPKEEP_LOCK}) as granted`;
export const END_UPKEEP_TURN = `select pg_advisory_unlock_shared(${UPKEEP_LOCK})`;

/**
 * Cancels the upkeep's running statements in this database, every controller's: sessions of the
 * panel's role (the upkeep's), as cancelling another role's is an error, not a no-op; and no
 * superuser's unless the panel is one (cancelling a superuser's session is an error too, even for
 * a role that is a member of it).
 */
const CANCEL_UPKEEP = `
  select count(*) filter (where pg_cancel_backend(a.pid))::int as cancelled
    from pg_stat_activity a left join pg_roles r on r.oid = a.usesysid
   where a.datname = current_database() and a.application_name = '${TABLE_UPKEEP_APPLICATION}'
     and a.pid <> pg_backend_pid() and pg_has_role(a.usesysid, 'USAGE')
     and (not coalesce(r.rolsuper, false) or (select rolsuper from pg_roles where rolname = current_user))`;

/** A connection of one's own: the lock is its session's (pg.Client, or a pool's client kept meanwhile). */
export interface Queryable {
  query<R extends object = Record<string, unknown>>(sql: string): Promise<{ rows: R[] }>;
}

/** How long hold-off tries (an upkeep gives way within one cost-delay sleep; this is the safety net). */
const HOLD_OFF_TRIES_MS = 10_000;

/**
 * Holds the upkeep off the database on `client`'s session until releaseTableUpkeep (or the
 * session's end): cancels what it runs, and takes its lock exclusively. Tries, cancelling again
 * between tries, rather than waits: a waiting exclusive would wait for a VACUUM that started
 * between the cancel and the lock. Past HOLD_OFF_TRIES_MS it goes on without the lock (the
 * upkeep's statement_timeout bounds what it can still hold up).
 */
export async function holdOffTableUpkeep(client: Queryable): Promise<boolean> {
  const deadline = Date.now() + HOLD_OFF_TRIES_MS;
  for (;;) {
    await client.query(CANCEL_UPKEEP);
    const { rows } = await client.query<{ locked: boolean }>(`select pg_try_advisory_lock(${UPKEEP_LOCK}) as locked`);
    // Granted: no upkeep holds a turn, so none is in a VACUUM or ANALYZE, and none starts one.
    // Not: one holds its turn, in its statement or about to send it (a cancel then finds the
    // session idle, and does nothing): cancelled on the next try.
    if (rows[0]?.locked) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Lets the upkeep run again (a pool's connection outlives its user: its session lock would not go). */
export async function releaseTableUpkeep(client: Queryable): Promise<void> {
  await client.query(`select pg_advisory_unlock(${UPKEEP_LOCK})`);
}
