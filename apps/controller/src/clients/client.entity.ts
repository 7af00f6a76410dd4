import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { User } from '../auth/user.entity.js';

export const CLIENT_STATUSES = ['active', 'disabled', 'expired', 'exhausted'] as const;
export type ClientStatus = (typeof CLIENT_STATUSES)[number];
export const RESET_CYCLES = ['none', 'daily', 'weekly', 'monthly'] as const;
export type ResetCycle = (typeof RESET_CYCLES)[number];

/** A customer: quota, expiry and device limit, attached to one or more interfaces. */
export const Client = defineEntity({
  name: 'Client',
  tableName: 'clients',
  indexes: [
    { properties: ['status'] },
    // Every list order ends in id, so deep pages walk one index instead of sorting 100,000 rows.
    { properties: ['createdAt', 'id'] },
    // A reseller's list (their clients, newest first) is one index walk however many others there are.
    { properties: ['owner', 'createdAt', 'id'] },
    { properties: ['name', 'id'] },
    // The traffic order walks a step of usedBytes (usedStep), not usedBytes itself: a counter
    // batch then changes no indexed column and its updates stay HOT (Migration20261127140200).
    { properties: ['usedStep', 'id'] },
    // The remaining order likewise walks a step of quota − used (remainingStep, Migration20261127170100).
    { properties: ['remainingStep', 'id'] },
    { properties: ['expiresAt'] },
    // Case-insensitive substring search over name and note stays an index scan at 100,000 clients.
    {
      name: 'clients_search_trgm',
      expression: `create index "clients_search_trgm" on "clients" using gin ((lower("name" || ' ' || "note")) gin_trgm_ops)`,
    },
    { name: 'clients_groups_gin', expression: `create index "clients_groups_gin" on "clients" using gin ("groups")` },
    // The enforcement job reads only the clients whose cycle is due (Migration20261127140000_client_scale).
    {
      name: 'clients_next_reset_at_index',
      expression: `create index "clients_next_reset_at_index" on "clients" ("next_reset_at") where "next_reset_at" is not null`,
    },
  ],
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    /**
     * The operator the client belongs to (docs/operators.md, "Client ownership"): whoever created
     * it. A reseller reaches only their own clients; deleting a user hands theirs to the owner who
     * deletes them (restrict: never silently, never with the clients).
     */
    owner: () => p.manyToOne(User).deleteRule('restrict'),
    name: p.string().length(128),
    note: p.string().length(512).default(''),
    groups: p.array().default([]),
    /** Telegram user ids exceed 2^31: stored as int8, exact in JSON up to 2^53. */
    telegramId: p.bigint('number').nullable().index(),
    quotaBytes: p.bigint('number').default(0),
    usedBytes: p.bigint('number').default(0),
    /**
     * Kept by the database (Migration20261127140200_counter_batches): a step of usedBytes (1/16 of a
     * doubling; no traffic: by the id's first two bytes), non-decreasing in (usedBytes, id); the traffic order leads with it.
     */
    usedStep: p
      .integer()
      .generated(
        `(case when "used_bytes" <= 0 then get_byte(uuid_send("id"), 0) * 256 + get_byte(uuid_send("id"), 1) - 65536 else 1 + floor(ln("used_bytes"::float8) * 23.083120654223414)::int end) stored`,
      )
      .nullable(),
    /**
     * Kept by the database (Migration20261127170100_remaining_step): a step of quotaBytes − usedBytes
     * (whole GiB, 1/64 doublings within; a whole number of GiB split by id; unlimited last, by id),
     * non-decreasing in (remaining, id); the remaining order leads with it.
     */
    remainingStep: p
      .bigint('number')
      .generated(
        `(case when "quota_bytes" = 0 then 4503599627370496 + get_byte(uuid_send("id"), 0) * 256 + get_byte(uuid_send("id"), 1) else (("quota_bytes" - "used_bytes") >> 30) * 65536 + case when ("quota_bytes" - "used_bytes") & 1073741823 = 0 then get_byte(uuid_send("id"), 0) * 16 + get_byte(uuid_send("id"), 1) / 16 when ("quota_bytes" - "used_bytes") > 0 then 4096 + floor(ln(("quota_bytes" - "used_bytes")::float8) * 92.33248261689366)::int else 8128 - floor(ln((-("quota_bytes" - "used_bytes"))::float8) * 92.33248261689366)::int end end) stored`,
      )
      .nullable(),
    upBytes: p.bigint('number').default(0),
    downBytes: p.bigint('number').default(0),
    expiresAt: p.datetime().nullable(),
    deviceLimit: p.integer().default(1),
    rateBitsPerSec: p.bigint('number').default(0),
    resetCycle: p.string().length(16).$type<ResetCycle>().default('none'),
    lastResetAt: p.datetime().nullable(),
    startOnFirstUse: p.boolean().default(false),
    /** Length of the service period that starts on first use. */
    durationSeconds: p.integer().default(0),
    activatedAt: p.datetime().nullable(),
    /**
     * When the reset cycle next renews (cycle anchor + one period), null without a cycle. Kept by
     * a database trigger (Migration20261127140000_client_scale) from reset_cycle, last_reset_at,
     * activated_at and created_at on every write; never written by the panel's code.
     */
    nextResetAt: p.datetime().nullable(),
    status: p.string().length(16).$type<ClientStatus>(),
    /**
     * When `status` last changed, kept by a database trigger (Migration20261126180100_groups) on
     * every update that changes it, whichever code path did; null until the first change. Purge
     * reads it ("disabled for more than N days").
     */
    statusChangedAt: p.datetime().nullable(),
    subId: p.string().length(64).unique(),
    /**
     * The subscription link (subscriptions/subscription-token.ts): the link's token is an HMAC of
     * the client's id and this nonce under the panel's subscription key, made the first time the
     * link is asked for and replaced by a rotation; only the token's SHA-256 is kept, to look it up.
     */
    subNonce: p.string().length(32).nullable(),
    subTokenHash: p.string().length(64).nullable().unique(),
    // What a list row shows of the client's devices and interfaces, kept here by the database
    // (triggers and the counter batches: Migration20261125090000_client_summaries), never written
    // by the panel's code: a list page reads them instead of three subqueries per row.
    deviceCount: p.integer().default(0),
    /** The latest handshake of any of its devices. */
    lastHandshake: p.datetime().nullable(),
    /** Its interfaces' ids as text, in uuid order. */
    interfaceIds: p.array().default([]),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type Client = InferEntity<typeof Client>;
