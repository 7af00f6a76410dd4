import { generatePassword, hashPassword } from '../auth/password.js';
import { UsersRepository } from '../auth/users.repository.js';
import { NewPasswordDto } from '../auth/dto/change-password.dto.js';
import type { WarrenConfig } from '../config/config.js';
import { cliNotices } from './cli-notices.js';
import { openPanelDatabase } from './panel-database.js';
import { accountUser } from './account-user.js';
import { CommandFailed, UsageError } from './usage.js';
import { validateOption } from './validate-option.js';

/** One line from standard input: the password, without its line ending. */
async function readPasswordLine(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += chunk.toString();
  const password = text.replace(/\r?\n$/, '');
  if (/[\r\n]/.test(password)) throw new UsageError('--password-stdin: expected one line');
  return password;
}

/**
 * `warren admin reset-password`: the way back in for someone at the host who lost the password.
 * Sets it (generated and printed once, or one line from stdin, under the same rule as
 * PATCH /api/auth/me) and ends every session of the user, so whoever held one is out. Records
 * `auth.password-changed` (by `command-line`), as the API does.
 */
export async function resetPassword(
  config: WarrenConfig,
  options: { username?: string; passwordStdin: boolean; temporary?: boolean },
): Promise<void> {
  const given = options.passwordStdin ? await readPasswordLine() : undefined;
  const password =
    given === undefined
      ? generatePassword()
      : (await validateOption(NewPasswordDto, { newPassword: given }, 'password')).newPassword;
  const database = await openPanelDatabase(config, (message) => console.error(`warren: ${message}`));
  let result: { username: string; sessionsEnded: number };
  try {
    const users = new UsersRepository(database.orm);
    const user = await accountUser(users, options.username);
    const temporary = options.temporary ?? false;
    const sessionsEnded = await users.changePassword(user.id, await hashPassword(password), undefined, temporary);
    if (sessionsEnded === null) throw new CommandFailed(`the user "${user.username}" was deleted meanwhile`);
    // The operators hear of it as of a change through the API (auth.password-changed).
    await cliNotices(database.orm).passwordChanged({ userId: user.id, username: user.username }, 'command-line');
    result = { username: user.username, sessionsEnded };
  } finally {
    await database.close();
  }
  const ended =
    `${result.sessionsEnded} session${result.sessionsEnded === 1 ? '' : 's'} ended; API tokens are unchanged` +
    (options.temporary ? '; it must be changed at the next sign-in' : '');
  if (given !== undefined) {
    process.stdout.write(`Password of ${result.username} set (${ended}).\n`);
    return;
  }
  process.stdout.write(
    `New password of ${result.username} (shown only this once; ${ended}):\n\n  ${password}\n\n` +
      'Change it after signing in: POST /api/auth/password {"currentPassword", "newPassword"}.\n',
  );
}
