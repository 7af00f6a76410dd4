/**
 * BullMQ's PostgreSQL backend keeps its tables in this schema of the panel's database. The
 * controller creates it and keeps the ORM's schema diff away from it; a local agent on the
 * PostgreSQL queue store reads its jobs there.
 */
export const QUEUE_SCHEMA = 'bullmq';
