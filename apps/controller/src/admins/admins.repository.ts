import { Inject, Injectable } from '@nestjs/common';
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import type { UserRole } from '#libs/contracts/user-roles.js';
import type { BulkAction } from './dto/admin.dto.js';

/** A user as the owner sees them. Built column by column: the password hash is never selected. */
export interface AdminView {
  id: string;
  username: string;
  role: UserRole;
  enabled: boolean;
  mustChangePassword: boolean;
  sessions: number;
  lastSeenAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Work that must commit with a user's creation or change, or not at all (a reseller's ceilings). */
export type AlongWith = (em: EntityManager, id: string) => Promise<void>;

export interface AdminChanges {
  username?: string;
  role?: UserRole;
  enabled?: boolean;
  /** A temporary password's hash: the user must change it at the next sign-in. */
  passwordHash?: string;
}

/** Why a change was not made: no such user, or it would leave the panel without an enabled owner. */
export type Refused = { refused: 'missing'; id: string } | { refused: 'lastOwner'; id: string };

interface AdminRow {
  id: string;
  username: string;
  role: UserRole;
  enabled: boolean;
  must_change_password: boolean;
  sessions: string;
  last_seen_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const SELECT = `select u.id, u.username, u.role, u.enabled, u.must_change_password, u.created_at, u.updated_at,
         (select count(*) from sessions s where s.user_id = u.id and s.expires_at > now()) as sessions,
         (select max(s.last_seen_at) from sessions s where s.user_id = u.id) as last_seen_at
    from users u`;

const view = (row: AdminRow): AdminView => ({
  id: row.id,
  username: row.username,
  role: row.role,
  enabled: row.enabled,
  mustChangePassword: row.must_change_password,
  sessions: Number(row.sessions),
  lastSeenAt: row.last_seen_at ? new Date(row.last_seen_at) : null,
  createdAt: new Date(row.created_at),
  updatedAt: new Date(row.updated_at),
});

/**
 * Panel users for the owner's Operators page (docs/operators.md). Every change that could take
 * the last enabled owner away runs in one transaction holding the enabled owners' rows
 * (`for update`): two owners demoting each other at the same moment cannot both succeed.
 */
@Injectable()
export class AdminsRepository {
  constructor(@Inject(MikroORM) private readonly orm: MikroORM) {}

  async list(): Promise<AdminView[]> {
    const rows = await this.orm.em.fork().execute<AdminRow[]>(`${SELECT} order by u.created_at, u.username`);
    return rows.map(view);
  }

  async get(id: string, em: EntityManager = this.orm.em.fork()): Promise<AdminView | null> {
    const [row] = await em.execute<AdminRow[]>(`${SELECT} where u.id = ?`, [id]);
    return row ? view(row) : null;
  }

  async create(
    user: { username: string; passwordHash: string; role: UserRole; enabled: boolean },
    alongWith?: AlongWith,
  ): Promise<AdminView> {
    return this.orm.em.fork().transactional(async (em) => {
      const [row] = await em.execute<{ id: string }[]>(
        `insert into users (id, username, password_hash, role, enabled, must_change_password, created_at, updated_at)
         values (gen_random_uuid(), ?, ?, ?, ?, true, now(), now()) returning id`,
        [user.username, user.passwordHash, user.role, user.enabled],
      );
      await alongWith?.(em, row.id);
      return (await this.get(row.id, em))!;
    });
  }

  /** Applies `changes` to one user; ends their sessions when disabled or given a temporary password. */
  /** The user's role, read under their row's lock (held by the caller's transaction until it ends). */
  async lockedRole(em: EntityManager, id: string): Promise<UserRole> {
    const [row] = await em.execute<{ role: UserRole }[]>('select role from users where id = ? for update', [id]);
    return row.role;
  }

  async change(id: string, changes: AdminChanges, alongWith?: AlongWith): Promise<AdminView | Refused> {
    return this.orm.em.fork().transactional(async (em) => {
      const owners = await this.lockEnabledOwners(em);
      const [target] = await em.execute<{ id: string }[]>('select id from users where id = ? for update', [id]);
      if (!target) return { refused: 'missing', id };
      const losesOwner = (changes.role !== undefined && changes.role !== 'owner') || changes.enabled === false;
      if (losesOwner && owners.includes(id) && owners.length <= 1) return { refused: 'lastOwner', id };
      const sets: string[] = [];
      const params: unknown[] = [];
      const set = (column: string, value: unknown) => {
        sets.push(`${column} = ?`);
        params.push(value);
      };
      if (changes.username !== undefined) set('username', changes.username);
      if (changes.role !== undefined) set('role', changes.role);
      if (changes.enabled !== undefined) set('enabled', changes.enabled);
      if (changes.passwordHash !== undefined) {
        set('password_hash', changes.passwordHash);
        set('must_change_password', true);
      }
      if (sets.length > 0)
        await em.execute(`update users set ${sets.join(', ')}, updated_at = now() where id = ?`, [...params, id]);
      if (changes.enabled === false || changes.passwordHash !== undefined)
        await em.execute('delete from sessions where user_id = ?', [id]);
      await alongWith?.(em, id);
      return (await this.get(id, em))!;
    });
  }

  /**
   * One action on every user of `ids`, all or none: an unknown id, or leaving no enabled owner,
   * changes nothing. Returns how many users changed.
   */
  async bulk(ids: string[], action: BulkAction, heirId?: string): Promise<number | Refused> {
    return this.orm.em.fork().transactional(async (em) => {
      const owners = await this.lockEnabledOwners(em);
      const found = await em.execute<{ id: string }[]>(
        'select id from users where id = any(array[?]::uuid[]) order by id for update',
        [ids],
      );
      const known = new Set(found.map((row) => row.id));
      const missing = ids.find((id) => !known.has(id));
      if (missing) return { refused: 'missing', id: missing };
      if (action !== 'enable' && owners.length > 0 && owners.every((owner) => known.has(owner)))
        return { refused: 'lastOwner', id: owners[0] };
      if (action === 'delete') {
        if (!heirId) throw new Error('deleting users needs an owner to hand their clients to');
        // Their clients stay, now the deleting owner's (clients.owner_id restricts: never lost with them).
        // The clients table is clients/' own, which sits above admins/: written by table name.
        await em.execute('update clients set owner_id = ? where owner_id = any(array[?]::uuid[])', [heirId, ids]);
        const deleted = await em.execute<{ id: string }[]>(
          'delete from users where id = any(array[?]::uuid[]) returning id',
          [ids],
        );
        return deleted.length;
      }
      const enabled = action === 'enable';
      const changed = await em.execute<{ id: string }[]>(
        'update users set enabled = ?, updated_at = now() where id = any(array[?]::uuid[]) and enabled <> ? returning id',
        [enabled, ids, enabled],
      );
      if (!enabled) await em.execute('delete from sessions where user_id = any(array[?]::uuid[])', [ids]);
      return changed.length;
    });
  }

  /** The enabled owners' ids, their rows held until the transaction ends. */
  private async lockEnabledOwners(em: EntityManager): Promise<string[]> {
    const rows = await em.execute<{ id: string }[]>(
      `select id from users where role = 'owner' and enabled order by id for update`,
    );
    return rows.map((row) => row.id);
  }
}
