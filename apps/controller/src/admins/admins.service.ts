import { Inject, Injectable } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { mayGrant, type UserRole } from '#libs/contracts/user-roles.js';
import { hashPassword } from '../auth/password.js';
import type { Principal } from '../auth/principal.js';
import { conflict, forbidden, notFound } from '../http/api-error.js';
import { mapUniqueViolations } from '../database/unique-violations.js';
import { poolLeft } from '../resellers/ceilings.js';
import {
  NO_CEILINGS,
  ResellerLimitsRepository,
  type ResellerAccount,
} from '../resellers/reseller-limits.repository.js';
import type { BulkAction } from './dto/admin.dto.js';
import { AdminsRepository, type AdminChanges, type AdminView, type Refused } from './admins.repository.js';
import type { ResellerLimitsDto } from './dto/reseller-limits.dto.js';
import { bumpRevisions } from '../revisions/revisions.js';
import { NotificationEvents } from '../notifications/events/notification-events.js';

/** What the owner sees of a reseller: ceilings, pool and clients. */
export interface ResellerSummary extends ResellerAccount {
  poolLeftBytes: number | null;
  clients: number;
  clientsLeft: number | null;
}

/** A user with, for a reseller, their ceilings and pool. */
export type OperatorView = AdminView & { reseller: ResellerSummary | null };

const USERNAME_TAKEN = {
  users_username_unique: { field: 'username', message: 'a user with this username exists already' },
};

/**
 * The rules of who may do what to which user (docs/operators.md). The routes are the owner's
 * alone (the route table), and the rules below hold for any caller all the same, so that a role
 * that may one day reach them (a reseller managing their own sub-users) inherits them:
 * - nobody grants a role above their own, and only an owner changes roles;
 * - nobody changes their own role, disables or deletes themselves, or sets their own password
 *   here (that is POST /api/auth/password, with the current one);
 * - the last enabled owner can be neither demoted, disabled nor deleted;
 * - disabling a user or setting a temporary password ends their sessions at once; a disabled
 *   user's API tokens are refused on the next request (the credential look-up joins `enabled`).
 */
@Injectable()
export class AdminsService {
  constructor(
    private readonly admins: AdminsRepository,
    private readonly resellers: ResellerLimitsRepository,
    @Inject(MikroORM) private readonly orm: MikroORM,
    private readonly notifications: NotificationEvents,
  ) {}

  async list(): Promise<OperatorView[]> {
    return this.withResellers(await this.admins.list());
  }

  async get(id: string): Promise<OperatorView> {
    const [view] = await this.withResellers([(await this.admins.get(id)) ?? missing()]);
    return view;
  }

  /** Adds each reseller's ceilings, pool and client count (two queries for the whole list). */
  private async withResellers(users: AdminView[]): Promise<OperatorView[]> {
    const ids = users.filter((user) => user.role === 'reseller').map((user) => user.id);
    const em = this.orm.em.fork();
    const [accounts, counts] = await Promise.all([
      this.resellers.getMany(em, ids),
      this.resellers.clientCounts(em, ids),
    ]);
    return users.map((user) => {
      if (user.role !== 'reseller') return { ...user, reseller: null };
      const account = accounts.get(user.id) ?? NO_CEILINGS;
      const clients = counts.get(user.id) ?? 0;
      return {
        ...user,
        reseller: {
          ...account,
          poolLeftBytes: poolLeft(account),
          clients,
          clientsLeft: account.maxClients === null ? null : Math.max(0, account.maxClients - clients),
        },
      };
    });
  }

  async create(
    caller: Principal,
    body: { username: string; password: string; role: UserRole; enabled?: boolean; limits?: ResellerLimitsDto },
  ): Promise<OperatorView> {
    assertMayGrant(caller, body.role);
    assertNotThroughScopedToken(caller, 'password');
    assertCeilingsFor(body.role, body.limits);
    const passwordHash = await hashPassword(body.password);
    const created = await mapUniqueViolations(
      () =>
        this.admins.create(
          { username: body.username, passwordHash, role: body.role, enabled: body.enabled ?? true },
          this.ceilingsWriter(body.limits),
        ),
      USERNAME_TAKEN,
    );
    return this.get(created.id);
  }

  /**
   * Writes the ceilings in the same transaction as the user's row, or nothing to do. The role is
   * read again there, under the user's row lock (and the limits row's, taken by setCeilings): a
   * role changed meanwhile by another request cannot leave ceilings on a non-reseller.
   */
  private ceilingsWriter(limits: ResellerLimitsDto | undefined) {
    if (!limits) return undefined;
    return async (em: Parameters<ResellerLimitsRepository['setCeilings']>[0], id: string) => {
      assertCeilingsFor(await this.admins.lockedRole(em, id), limits);
      await this.resellers.setCeilings(em, id, limits);
    };
  }

  /**
   * After the owner changed a reseller's pool (its size, or a reset): their clients are cut off at
   * once when it is used up, and brought back when it has room again (docs/operators.md, "The
   * pool"). Its own transaction, after the change's: the clients' rows are taken after the limits
   * row by nothing else (a counter batch takes them the other way round), and a deadlock with a
   * counter batch is retried, the settling being the same whenever it runs.
   */
  private async applyPool(id: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.orm.em.fork().transactional(async (em) => {
          const { nodeIds } = await this.resellers.applyPool(em, [id], true, new Date());
          await bumpRevisions(em, nodeIds);
        });
        return;
      } catch (error) {
        if (attempt >= 5 || (error as { code?: string }).code !== '40P01') throw error;
      }
    }
  }

  async update(
    caller: Principal,
    id: string,
    body: { username?: string; role?: UserRole; enabled?: boolean; password?: string; limits?: ResellerLimitsDto },
  ): Promise<OperatorView> {
    const current = await this.get(id);
    const self = id === caller.userId;
    // Ceilings are the owner's to set (the route is the owner's; a reseller never reaches their own).
    if (body.limits !== undefined && self) throw forbidden('nobody sets their own ceilings', 'limits');
    assertCeilingsFor(body.role ?? current.role, body.limits);
    if (body.role !== undefined && body.role !== current.role) {
      if (self) throw forbidden('nobody changes their own role', 'role');
      if (caller.role !== 'owner') throw forbidden('only the owner changes roles', 'role');
      assertMayGrant(caller, body.role);
      assertNotThroughScopedToken(caller, 'role');
    }
    if (body.password !== undefined && !self) assertNotThroughScopedToken(caller, 'password');
    // Setting a password changes how someone signs in: a signed-in session only, never a token.
    if (body.password !== undefined && !self && caller.via !== 'session')
      throw forbidden('only a signed-in session may set a password; API tokens may not', 'password');
    if (body.enabled === true && !current.enabled) assertNotThroughScopedToken(caller, 'enabled');
    if (self && body.enabled === false) throw conflict('you cannot disable your own account', 'enabled');
    if (self && body.password !== undefined)
      throw forbidden(
        'change your own password with POST /api/auth/password (the current one is required)',
        'password',
      );
    const changes: AdminChanges = { username: body.username, role: body.role, enabled: body.enabled };
    if (body.password !== undefined) changes.passwordHash = await hashPassword(body.password);
    const changed = await mapUniqueViolations(
      () => this.admins.change(id, changes, this.ceilingsWriter(body.limits)),
      USERNAME_TAKEN,
    );
    settled(changed, () => (body.enabled === false && body.role === undefined ? 'enabled' : 'role'));
    if (body.limits?.trafficPoolBytes !== undefined) await this.applyPool(id);
    if (changes.passwordHash !== undefined) {
      const at = new Date();
      await this.notifications.record(null, {
        kind: 'auth.password-changed',
        crossing: `auth.password-changed:${id}:${at.getTime()}`,
        subject: { type: 'admin', id, name: body.username ?? current.username },
        details: { by: caller.username },
        occurredAt: at,
      });
    }
    return this.get(id);
  }

  async remove(caller: Principal, id: string): Promise<{ id: string; deleted: true }> {
    if (id === caller.userId) throw conflict('you cannot delete your own account', 'id');
    settled(await this.admins.bulk([id], 'delete', caller.userId), () => 'id');
    return { id, deleted: true };
  }

  async bulk(
    caller: Principal,
    ids: string[],
    action: BulkAction,
  ): Promise<{ action: BulkAction; ids: string[]; changed: number }> {
    if (action === 'enable') assertNotThroughScopedToken(caller, 'action');
    if (action !== 'enable' && ids.includes(caller.userId))
      throw conflict(`you cannot ${action} your own account`, `ids[${ids.indexOf(caller.userId)}]`);
    const changed = settled(await this.admins.bulk(ids, action, caller.userId), (id) => `ids[${ids.indexOf(id)}]`);
    return { action, ids, changed };
  }

  /**
   * Starts a reseller's traffic pool afresh (issue 22 item 4): the bytes their clients used so far
   * no longer count against it. Their clients' own traffic is not touched. Only a reseller has a pool.
   */
  async resetUsage(caller: Principal, id: string): Promise<OperatorView> {
    const user = await this.get(id);
    if (id === caller.userId) throw forbidden('nobody resets their own pool', 'id');
    if (user.role !== 'reseller')
      throw conflict(
        `only a reseller has a usage pool to reset, and this user is ${user.role === 'admin' ? 'an' : 'a'} ${user.role}`,
        'role',
      );
    await this.orm.em.fork().transactional((em) => this.resellers.resetPool(em, id));
    await this.applyPool(id);
    return this.get(id);
  }
}

/** Ceilings belong to resellers: set for any other role they would do nothing, so they are refused. */
function assertCeilingsFor(role: UserRole, limits: ResellerLimitsDto | undefined): void {
  if (limits !== undefined && role !== 'reseller')
    throw conflict(`only a reseller has ceilings, and this user's role is ${role}`, 'limits');
}

function assertMayGrant(caller: Principal, role: UserRole): void {
  if (!mayGrant(caller.role, role)) throw forbidden(`the ${caller.role} role may not grant the ${role} role`, 'role');
}

/**
 * A scoped API token (read-only, limited to route groups, or expiring) reaches no further than
 * itself (docs/roles.md, "No widening"); a user's password is a credential with no scope and no
 * expiry, and a role or an enabled account is access. So through such a token no user is made,
 * no password set, no role changed and nobody enabled; disabling, deleting and renaming narrow
 * and stay allowed. An unscoped token acts with its user's whole role, as a session does.
 */
function assertNotThroughScopedToken(caller: Principal, field: string): void {
  const scope = caller.scope;
  if (scope && (scope.readOnly || scope.routeGroups !== null || scope.expiresAt !== null))
    throw forbidden(
      'a scoped API token may not create users, set passwords, change roles or enable users: they would reach further than the token',
      field,
    );
}

function missing(): never {
  throw notFound('user not found', 'id');
}

/**
 * The repository's answer, or the refusal it stands for: `field(id)` names the field at fault for
 * the user `id` (an element of a bulk request's `ids`, or what a single change changed).
 */
function settled<T>(result: T | Refused, field: (id: string) => string): T {
  if (typeof result !== 'object' || result === null || !('refused' in result)) return result;
  if (result.refused === 'missing') throw notFound('user not found', field(result.id));
  throw conflict('the panel must keep at least one enabled owner', field(result.id));
}
