import { AdminsRepository } from '../admins/admins.repository.js';
import type { WarrenConfig } from '../config/config.js';
import { withPanelDatabase } from './panel-database.js';
import { table } from './table.js';
import { CommandFailed } from './usage.js';

const withAdmins = <T>(config: WarrenConfig, quiet: boolean, use: (admins: AdminsRepository) => Promise<T>) =>
  withPanelDatabase(config, quiet, (orm) => use(new AdminsRepository(orm)));

/** `warren admin list [--json]`: the panel's users as GET /api/admins shows them, never a password. */
export async function adminList(config: WarrenConfig, options: { json: boolean }): Promise<void> {
  const users = await withAdmins(config, options.json, (admins) => admins.list());
  if (options.json) {
    process.stdout.write(`${JSON.stringify(users, null, 2)}\n`);
    return;
  }
  process.stdout.write(
    table(
      ['ID', 'USERNAME', 'ROLE', 'STATE', 'PASSWORD', 'SESSIONS', 'LAST SEEN'],
      users.map((user) => [
        user.id,
        user.username,
        user.role,
        user.enabled ? 'enabled' : 'disabled',
        user.mustChangePassword ? 'temporary' : 'set',
        String(user.sessions),
        user.lastSeenAt?.toISOString() ?? 'never',
      ]),
    ),
  );
}

/**
 * `warren admin enable|disable USERNAME`: as the Operators page's switch, under the same rule (the
 * last enabled owner stays enabled); disabling ends the user's sessions and stops their tokens.
 */
export async function adminSetEnabled(config: WarrenConfig, username: string, enabled: boolean): Promise<void> {
  const changed = await withAdmins(config, false, async (admins) => {
    const user = (await admins.list()).find((candidate) => candidate.username === username);
    if (!user) throw new CommandFailed(`there is no user "${username}" (warren admin list shows them)`);
    const result = await admins.bulk([user.id], enabled ? 'enable' : 'disable');
    if (typeof result !== 'number')
      throw new CommandFailed(
        result.refused === 'missing'
          ? `the user "${username}" was deleted meanwhile`
          : `"${username}" is the last enabled owner: the panel must keep one`,
      );
    return result;
  });
  const state = enabled ? 'enabled' : 'disabled (sessions ended, API tokens refused)';
  process.stdout.write(`${username} ${changed === 0 ? 'was already' : 'is now'} ${state}.\n`);
}
