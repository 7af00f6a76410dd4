import { z } from 'zod';

/**
 * Number shapes shared by the messages agents send. Every number an agent reports is bounded
 * here, once: the controller refuses a message outside these bounds before anything of it is
 * stored or shown, so no reported value can fail a database write (a `smallint` column) or a
 * date conversion (`new Date(2 ** 53)` is an Invalid Date) later.
 */

/** The latest time an agent may report, ms since the epoch (2100-01-01): a Date holds it and ISO prints it. */
export const MAX_TIMESTAMP_MS = Date.UTC(2100, 0, 1);

/** A point in time, ms since the epoch (0 is allowed: a host without a clock yet reports 1970). */
export const timestampMs = z.number().int().min(0).max(MAX_TIMESTAMP_MS);

/** A size or amount of bytes: exact in a double, so never above 2^53 - 1. */
export const byteCount = z.number().nonnegative().max(Number.MAX_SAFE_INTEGER);

/**
 * A desired-state revision (one per change of a node): any exact integer. A host that claims one
 * ahead of every revision the panel issued gets the node's desired revision moved one past it
 * (DeliveryService.hostReports), but only below MAX_REVISION: far above any count of changes, and
 * far enough below 2^53 that the revisions after it stay exact for as long as anyone can make
 * changes.
 */
export const MAX_REVISION = 2 ** 52;
export const revisionNumber = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
