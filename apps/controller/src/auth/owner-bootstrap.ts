import type { MikroORM } from '@mikro-orm/postgresql';
import type { WarrenConfig } from '../config/config.js';
import { generatePassword, hashPassword } from './password.js';
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
  const generatedPassword = admin.password ? undefined : generatePassword();
  await users.create({
    username,
    passwordHash: await hashPassword(admin.password ?? generatedPassword!),
    role: 'owner',
  });
  return { username, generatedPassword };
}

/** What the first start tells the owner about changing the password it was given. */
export function changePasswordHint(panelUrl: string): string {
  return (
    `change it after signing in: PATCH ${panelUrl}api/auth/me with {"currentPassword": "...", "newPassword": "..."} ` +
    `(${panelUrl}api/docs has a ready curl command), or on this host: warren admin reset-password (from a checkout: npm run cli -- admin reset-password)`
  );
}
