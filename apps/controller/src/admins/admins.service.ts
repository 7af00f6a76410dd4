import { Injectable } from '@nestjs/common';
import { mayGrant, type UserRole } from '#libs/contracts/user-roles.js';
import { hashPassword } from '../auth/password.js';
import type { Principal } from '../auth/principal.js';
import { conflict, forbidden, notFound } from '../http/api-error.js';
import { mapUniqueViolations } from '../database/unique-violations.js';
import type { BulkAction } from './dto/admin.dto.js';
import { AdminsRepository, type AdminChanges, type AdminView, type Refused } from './admins.repository.js';

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
  constructor(private readonly admins: AdminsRepository) {}

  list(): Promise<AdminView[]> {
    return this.admins.list();
  }

  async get(id: string): Promise<AdminView> {
    return (await this.admins.get(id)) ?? missing();
  }

  async create(
    caller: Principal,
    body: { username: string; password: string; role: UserRole; enabled?: boolean },
  ): Promise<AdminView> {
    assertMayGrant(caller, body.role);
    assertNotThroughScopedToken(caller, 'password');
    const passwordHash = await hashPassword(body.password);
    return mapUniqueViolations(
      () =>
        this.admins.create({ username: body.username, passwordHash, role: body.role, enabled: body.enabled ?? true }),
      USERNAME_TAKEN,
    );
  }

  async update(
    caller: Principal,
    id: string,
    body: { username?: string; role?: UserRole; enabled?: boolean; password?: string },
  ): Promise<AdminView> {
    const current = await this.get(id);
    const self = id === caller.userId;
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
    const changed = await mapUniqueViolations(() => this.admins.change(id, changes), USERNAME_TAKEN);
    return settled(changed, () => (body.enabled === false && body.role === undefined ? 'enabled' : 'role'));
  }

  async remove(caller: Principal, id: string): Promise<{ id: string; deleted: true }> {
    if (id === caller.userId) throw conflict('you cannot delete your own account', 'id');
    settled(await this.admins.bulk([id], 'delete'), () => 'id');
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
    const changed = settled(await this.admins.bulk(ids, action), (id) => `ids[${ids.indexOf(id)}]`);
    return { action, ids, changed };
  }

  /**
   * A reseller's traffic pool is reset here (issue 22 item 4). No role has a pool yet: the
   * reseller role comes with client ownership, so every existing user answers 409.
   */
  async resetUsage(id: string): Promise<AdminView> {
    const user = await this.get(id);
    throw conflict(
      `only a reseller has a usage pool to reset, and this user is ${user.role === 'admin' ? 'an' : 'a'} ${user.role}`,
      'role',
    );
  }
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
