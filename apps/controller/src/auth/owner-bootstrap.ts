import type { MikroORM } from '@mikro-orm/postgresql';
import { randomBytes } from 'node:crypto';
import type { WarrenConfig } from '../config/config.js';
import { hashPassword } from './password.js';
import { UsersRepository } from './users.repository.js';

export interface OwnerCreated {
  username: string;
  /** Set only when the panel generated the password; it is printed once and never stored in the clear. */
  generatedPassword?: string;
}

/** On the first start (no users at all) creates the owner; later starts change nothing. */
export async function ensureOwner(orm: MikroORM, admin: WarrenConfig['admin']): Promise<OwnerCreated | undefined> {
  const users = new UsersRepository(orm);
  if ((await users.count()) > 0) return undefined;
  const username = admin.username ?? 'admin';
  const generatedPassword = admin.password ? undefined : randomBytes(18).toString('base64url');
  await users.create({ username, passwordHash: await hashPassword(admin.password ?? generatedPassword!), role: 'owner' });
  return { username, generatedPassword };
}
