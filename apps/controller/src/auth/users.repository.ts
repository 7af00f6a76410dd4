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
  enabled: boolean;
  mustChangePassword: boolean;
}

/** A session as its user sees it in the list: never its token or the token's hash. */
export interface SessionView {
  id: string;
  createdAt: Date;
  expiresAt: Date;
  lastSeenAt: Date | null;
  address: string | null;
  userAgent: string | null;
}

const credentials = (user: User): UserCredentials => ({
  id: user.id,
  username: user.username,
  role: user.role,
  passwordHash: user.passwordHash,
  enabled: user.enabled,
  mustChangePassword: user.mustChangePassword,
});

/**
 * Users and their sessions. Built by Nest for the panel, and with `new` by start-up (owner
 * bootstrap) and the command line, which run before or without Nest.
 */
@Injectable()
export class UsersRepository {
  constructor(@Inject(MikroORM) private readonly orm: MikroORM) {}

  async findByUsername(username: string): Promise<UserCredentials | null> {
    const user = await this.orm.em.fork().findOne(User, { username });
    return user && credentials(user);
  }

  async findById(id: string): Promise<UserCredentials | null> {
    const user = await this.orm.em.fork().findOne(User, { id });
    return user && credentials(user);
  }

  /**
   * Sets a new password hash and ends the user's sessions, all but `keepSessionId` when given,
   * in one transaction: no session of the old password outlives the change. Returns how many
   * sessions ended (null when there is no such user). A password the user chose is never
   * temporary: `mustChangePassword` is cleared; `temporary` (the owner setting it for someone
   * else) sets it instead.
   */
  async changePassword(
    userId: string,
    passwordHash: string,
    keepSessionId?: string,
    temporary = false,
  ): Promise<number | null> {
    return this.orm.em.fork().transactional(async (em) => {
      const now = new Date();
      const changes = {
        passwordHash,
        mustChangePassword: temporary,
        // A temporary password was chosen by someone else: it does not count as the user's own.
        ...(temporary ? { passwordChangedAt: null } : { passwordChangedAt: now }),
        updatedAt: now,
      };
      if ((await em.nativeUpdate(User, { id: userId }, changes)) === 0) return null;
      return em.nativeDelete(Session, keepSessionId ? { user: userId, id: { $ne: keepSessionId } } : { user: userId });
    });
  }

  /** The account the command line acts for by default: the first enabled owner (the first start made one). */
  async findOwner(): Promise<{ id: string; username: string } | null> {
    const owner = await this.orm.em
      .fork()
      .findOne(User, { role: 'owner' }, { orderBy: { enabled: 'desc', createdAt: 'asc' } });
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

  async createSession(
    userId: string,
    tokenHash: string,
    expiresAt: Date,
    from: { address?: string; userAgent?: string } = {},
  ): Promise<void> {
    const em = this.orm.em.fork();
    em.create(Session, {
      tokenHash,
      user: userId,
      expiresAt,
      lastSeenAt: new Date(),
      address: from.address?.slice(0, 64) ?? null,
      userAgent: from.userAgent?.slice(0, 256) ?? null,
    });
    await em.flush();
  }

  /** The user's live sessions, the most recently seen first. */
  async sessionsOf(userId: string): Promise<SessionView[]> {
    const sessions = await this.orm.em
      .fork()
      .find(
        Session,
        { user: userId, expiresAt: { $gt: new Date() } },
        { orderBy: { lastSeenAt: 'desc nulls last', createdAt: 'desc' } },
      );
    return sessions.map((session) => ({
      id: session.id,
      createdAt: session.createdAt,
      expiresAt: session.expiresAt,
      lastSeenAt: session.lastSeenAt ?? null,
      address: session.address ?? null,
      userAgent: session.userAgent ?? null,
    }));
  }

  /** Ends one of the user's sessions; false when they have no such session. */
  async deleteSessionOf(userId: string, id: string): Promise<boolean> {
    return (await this.orm.em.fork().nativeDelete(Session, { id, user: userId })) > 0;
  }

  /** Ends every session of the user but `keepSessionId` (every one without it); how many ended. */
  deleteSessionsOf(userId: string, keepSessionId?: string): Promise<number> {
    return this.orm.em
      .fork()
      .nativeDelete(Session, keepSessionId ? { user: userId, id: { $ne: keepSessionId } } : { user: userId });
  }

  async deleteSession(id: string): Promise<void> {
    await this.orm.em.fork().nativeDelete(Session, { id });
  }

  async deleteExpiredSessions(now: Date): Promise<void> {
    await this.orm.em.fork().nativeDelete(Session, { expiresAt: { $lt: now } });
  }
}
