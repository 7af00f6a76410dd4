import type { UsersRepository } from '../auth/users.repository.js';
import { CommandFailed, NO_OWNER } from './usage.js';

/** The user an `admin` command acts on: NAME from `--username NAME`, else the first owner; exit 1 when none. */
export async function accountUser(
  users: UsersRepository,
  username: string | undefined,
): Promise<{ id: string; username: string }> {
  const user = username === undefined ? await users.findOwner() : await users.findByUsername(username);
  if (!user) throw new CommandFailed(username === undefined ? NO_OWNER : `there is no user "${username}"`);
  return user;
}
