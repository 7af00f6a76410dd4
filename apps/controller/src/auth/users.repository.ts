import { Inject, Injectable } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { Session } from './session.entity.js';
import type { UserRole } from '#libs/contracts/user-roles.js';
import { User } from './user.entity.js';

/** A user as sign-in needs it: the password hash never leaves auth/. */
export interface UserCredentials {
  id: string;
  username: string;
  role: UserRole;
  passwordHash: string;
}

/**
 * Users and their sessions. Built by Nest for the panel, and with `new` by start-up (owner
 * bootstrap) and the command line, which run before or without Nest.
 */
@Injectable()
export class UsersRepository {
  constructor(@Inject(MikroORM) private readonly orm: MikroORM) {}

  async findByUsername(username: string): Promise<UserCredentials | null> {
    const user = await this.orm.em.fork().findOne(User, { username });
    return user && { id: user.id, username: user.username, role: user.role, passwordHash: user.passwordHash };
  }

  async findById(id: string): Promise<UserCredentials | null> {
    const user = await this.orm.em.fork().findOne(User, { id });
    return user && { id: user.id, username: user.username, role: user.role, passwordHash: user.passwordHash };
  }

  /**
   * Sets a new password hash and ends the user's sessions, all but `keepSessionId` when given,
   * in one transaction: no session of the old password outlives the change. Returns how many
   * sessions ended (null when there is no such user).
   */
  async changePassword(userId: string, passwordHash: string, keepSessionId?: string): Promise<number | null> {
    return this.orm.em.fork().transactional(async (em) => {
      if ((await em.nativeUpdate(User, { id: userId }, { passwordHash, updatedAt: new Date() })) === 0) return null;
      return em.nativeDelete(Session, keepSessionId ? { user: userId, id: { $ne: keepSessionId } } : { user: userId });
    });
  }

  /** The account the command line acts for by default: the first owner (created on the panel's first start). */
  async findOwner(): Promise<{ id: string; username: string } | null> {
    const owner = await this.orm.em.fork().findOne(User, { role: 'owner' }, { orderBy: { createdAt: 'asc' } });
    return owner && { id: owner.id, username: owner.username };
  }

  count(): Promise<number> {
    return this.orm.em.fork().count(User, {});
  }

  async create(user: { username: string; passwordHash: string; role: UserRole }): Promise<void> {
    const em = this.orm.em.fork();
    em.create(User, user);
    await em.flush();
  }

  async createSession(userId: string, tokenHash: string, expiresAt: Date): Promise<void> {
    const em = this.orm.em.fork();
    em.create(Session, { tokenHash, user: userId, expiresAt });
    await em.flush();
  }

  async deleteSession(id: string): Promise<void> {
    await this.orm.em.fork().nativeDelete(Session, { id });
  }

  async deleteExpiredSessions(now: Date): Promise<void> {
    await this.orm.em.fork().nativeDelete(Session, { expiresAt: { $lt: now } });
  }
}
