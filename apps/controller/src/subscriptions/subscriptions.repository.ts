import { Inject, Injectable } from '@nestjs/common';
import type { OwnerFilter } from '../auth/operator-scope.js';
import { MikroORM } from '@mikro-orm/postgresql';
import type { ClientStatus } from '../clients/client.entity.js';
import type { PreparedPool } from '../database/prepared-pool.js';
import { PREPARED_POOL } from '../runtime.js';
import { readNumber } from '../clients/sql.js';

/** What a client's public page shows besides its configs. */
export interface SubscriptionClient {
  id: string;
  name: string;
  status: ClientStatus;
  quotaBytes: number;
  usedBytes: number;
  upBytes: number;
  downBytes: number;
  expiresAt: Date | null;
  /**
   * A start-on-first-use client not yet connected: how long it will run from its first
   * connection (its expiry is unknown until then). Null otherwise.
   */
  expiresAfterFirstUseSeconds: number | null;
  tokenHash: string;
}

/** A token's lookup: the client it opens (if any), and a lockout on the caller's address (if any). */
export interface TokenLookup {
  client: SubscriptionClient | null;
  lockedUntil: Date | null;
  /** The page settings row's value, as stored (read in the same round trip). */
  settings: unknown;
}

/** A one-time link that was just spent: the config it stands for. */
export interface SpentLink {
  deviceId: string;
  interfaceId: string;
  hostId: string | null;
}

/** A link just spent, with its client's status as it is now: only an active client's config is handed out. */
export interface SpentDownload extends SpentLink {
  clientStatus: ClientStatus;
}

/** A live one-time link, looked at without spending it (the page a chat preview may fetch). */
export interface LiveDownload {
  clientStatus: ClientStatus;
  expiresAt: Date;
}

interface ClientRow {
  id: string | null;
  name: string;
  status: ClientStatus;
  quota_bytes: string | number;
  used_bytes: string | number;
  up_bytes: string | number;
  down_bytes: string | number;
  expires_at: Date | string | null;
  pending_duration_seconds: string | number | null;
  sub_token_hash: string;
  locked_until: Date | string | null;
  settings: unknown;
}

const date = (value: Date | string | null) => (value === null ? null : new Date(value));

/** Subscription links (clients' nonces and token hashes), one-time links and the page settings rows. */
@Injectable()
export class SubscriptionsRepository {
  constructor(
    @Inject(MikroORM) private readonly orm: MikroORM,
    @Inject(PREPARED_POOL) private readonly prepared: PreparedPool,
  ) {}

  /** The client's link nonce and token hash, or undefined for no such client (nulls: no link yet). */
  async linkOf(
    clientId: string,
    scope: OwnerFilter,
  ): Promise<{ nonce: string | null; tokenHash: string | null } | undefined> {
    const rows = await this.orm.em
      .fork()
      .execute<{ sub_nonce: string | null; sub_token_hash: string | null }[]>(
        `select sub_nonce, sub_token_hash from clients where id = ? and (?::uuid is null or owner_id = ?::uuid)`,
        [clientId, scope.ownerId, scope.ownerId],
      );
    return rows.length === 0 ? undefined : { nonce: rows[0].sub_nonce, tokenHash: rows[0].sub_token_hash };
  }

  /** Sets the link when the client has none; two callers at once keep the first one's. */
  async setNonceIfNone(clientId: string, nonce: string, tokenHash: string): Promise<void> {
    await this.orm.em
      .fork()
      .execute('update clients set sub_nonce = ?, sub_token_hash = ? where id = ? and sub_nonce is null', [
        nonce,
        tokenHash,
        clientId,
      ]);
  }

  /** A new link in place of the old one; false: no such client within the scope. */
  async replaceNonce(clientId: string, nonce: string, tokenHash: string, scope: OwnerFilter): Promise<boolean> {
    const rows = await this.orm.em.fork().execute<{ id: string }[]>(
      // The client's unspent one-time links go in the same statement: a rotation is the operator's
      // "this customer's links leaked", and a config sent over chat is one of them.
      `with rotated as (
         update clients set sub_nonce = ?, sub_token_hash = ?
          where id = ? and (?::uuid is null or owner_id = ?::uuid) returning id),
       revoked as (
         delete from download_links l using devices d, rotated r
          where d.id = l.device_id and d.client_id = r.id and l.used_at is null returning l.token_hash)
       select id, (select count(*) from revoked) as revoked from rotated`,
      [nonce, tokenHash, clientId, scope.ownerId, scope.ownerId],
    );
    return rows.length > 0;
  }

  /**
   * One round trip: the client whose token hashes to `tokenHash`, whether `throttleKey` is
   * locked out now, and the page settings. Always one row (a left join from a single row), found or not.
   */
  async lookup(tokenHash: string, throttleKey: string, settingsKey: string): Promise<TokenLookup> {
    // A prepared statement (the public page's one query before its configs), as the credential look-ups are.
    const [row] = await this.prepared.query<ClientRow>(
      'subscription_lookup',
      `select c.id, c.name, c.status, c.quota_bytes, c.used_bytes, c.up_bytes, c.down_bytes, c.expires_at,
              case when c.start_on_first_use and c.expires_at is null and c.activated_at is null and c.duration_seconds > 0
                   then c.duration_seconds end as pending_duration_seconds,
              c.sub_token_hash,
              (select max(locked_until) from login_throttles
                where key = $1 and locked_until > now()) as locked_until,
              (select value from settings where key = $2) as settings
         from (select 1) as one left join clients c on c.sub_token_hash = $3`,
      [throttleKey, settingsKey, tokenHash],
    );
    return {
      lockedUntil: date(row.locked_until),
      settings: row.settings,
      client:
        row.id === null
          ? null
          : {
              id: row.id,
              name: row.name,
              status: row.status,
              quotaBytes: readNumber(row.quota_bytes),
              usedBytes: readNumber(row.used_bytes),
              upBytes: readNumber(row.up_bytes),
              downBytes: readNumber(row.down_bytes),
              expiresAt: date(row.expires_at),
              expiresAfterFirstUseSeconds:
                row.pending_duration_seconds === null ? null : readNumber(row.pending_duration_seconds),
              tokenHash: row.sub_token_hash,
            },
    };
  }

  /** The lockout on `throttleKey` now, if any (a one-time link's check before it is spent). */
  async lockedUntil(throttleKey: string): Promise<Date | null> {
    const [row] = await this.orm.em
      .fork()
      .execute<{ locked_until: Date | string | null }[]>(
        'select max(locked_until) as locked_until from login_throttles where key = ? and locked_until > now()',
        [throttleKey],
      );
    return date(row.locked_until);
  }

  async createDownloadLink(link: SpentLink & { tokenHash: string; expiresAt: Date }): Promise<void> {
    await this.orm.em.fork().execute(
      `insert into download_links (token_hash, device_id, interface_id, host_id, expires_at, used_at, created_at)
         values (?, ?, ?, ?, ?, null, now())`,
      [link.tokenHash, link.deviceId, link.interfaceId, link.hostId, link.expiresAt],
    );
  }

  /** The one-time link if it is unused and unexpired at `now`, its client's status as it is now; nothing is spent. */
  async liveDownloadLink(tokenHash: string, now: Date): Promise<LiveDownload | undefined> {
    const rows = await this.orm.em.fork().execute<{ client_status: ClientStatus; expires_at: Date | string }[]>(
      `select c.status as client_status, l.expires_at
         from download_links l join devices d on d.id = l.device_id join clients c on c.id = d.client_id
        where l.token_hash = ? and l.used_at is null and l.expires_at > ?`,
      [tokenHash, now],
    );
    return rows.length === 0
      ? undefined
      : { clientStatus: rows[0].client_status, expiresAt: new Date(rows[0].expires_at) };
  }

  /**
   * Spends a one-time link: one statement marks it used if it is unused and unexpired at `now`,
   * so of two downloads at once exactly one gets the config. Undefined: no such live link.
   */
  async spendDownloadLink(tokenHash: string, now: Date): Promise<SpentDownload | undefined> {
    const rows = await this.orm.em
      .fork()
      .execute<{ device_id: string; interface_id: string; host_id: string | null; client_status: ClientStatus }[]>(
        `update download_links l set used_at = ?
          from devices d join clients c on c.id = d.client_id
        where l.token_hash = ? and l.used_at is null and l.expires_at > ? and d.id = l.device_id
        returning l.device_id, l.interface_id, l.host_id, c.status as client_status`,
        [now, tokenHash, now],
      );
    if (rows.length === 0) return undefined;
    const [row] = rows;
    return {
      deviceId: row.device_id,
      interfaceId: row.interface_id,
      hostId: row.host_id,
      clientStatus: row.client_status,
    };
  }

  /** Links spent or expired before `before` are of no more use. */
  async pruneDownloadLinks(before: Date): Promise<number> {
    const rows = await this.orm.em
      .fork()
      .execute<{ token_hash: string }[]>(
        'delete from download_links where expires_at < ? or used_at < ? returning token_hash',
        [before, before],
      );
    return rows.length;
  }

  /** A settings row's value (settings/ owns the table; these two keys are this module's). */
  async readSetting(key: string): Promise<unknown> {
    const rows = await this.orm.em
      .fork()
      .execute<{ value: unknown }[]>('select value from settings where key = ?', [key]);
    return rows[0]?.value;
  }

  async writeSetting(key: string, value: unknown): Promise<void> {
    await this.orm.em.fork().execute(
      `insert into settings (key, value, updated_at) values (?, ?::jsonb, now())
         on conflict (key) do update set value = excluded.value, updated_at = excluded.updated_at`,
      [key, JSON.stringify(value)],
    );
  }

  /** Stores `value` unless the key already has one; answers the value that stands. */
  async settingOnce(key: string, value: unknown): Promise<unknown> {
    await this.orm.em
      .fork()
      .execute(
        `insert into settings (key, value, updated_at) values (?, ?::jsonb, now()) on conflict (key) do nothing`,
        [key, JSON.stringify(value)],
      );
    return this.readSetting(key);
  }
}
