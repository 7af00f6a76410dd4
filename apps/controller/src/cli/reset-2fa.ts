import { TotpRepository } from '../auth/totp/totp.repository.js';
import { UsersRepository } from '../auth/users.repository.js';
import type { WarrenConfig } from '../config/config.js';
import { cliNotices } from './cli-notices.js';
import { openPanelDatabase } from './panel-database.js';
import { accountUser } from './account-user.js';
import { CommandFailed } from './usage.js';

/**
 * `warren admin reset-2fa`: the way back in for someone at the host whose authenticator app and
 * recovery codes are lost. Turns the user's two-factor sign-in off (secret and recovery codes
 * forgotten); the password, sessions and API tokens stay.
 */
export async function resetTwoFactor(config: WarrenConfig, options: { username?: string }): Promise<void> {
  const database = await openPanelDatabase(config, (message) => console.error(`warren: ${message}`));
  let username: string;
  let wasOn: boolean;
  try {
    const users = new UsersRepository(database.orm);
    const user = await accountUser(users, options.username);
    const totp = new TotpRepository(database.orm);
    wasOn = (await totp.state(user.id))?.enabled ?? false;
    if (!(await totp.clear(user.id))) throw new CommandFailed(`the user "${user.username}" was deleted meanwhile`);
    username = user.username;
    // Told only when it was on, as the API tells only a change (auth.two-factor-changed).
    if (wasOn)
      await cliNotices(database.orm).twoFactorChanged(
        { userId: user.id, username: user.username },
        false,
        'command-line',
      );
  } finally {
    await database.close();
  }
  process.stdout.write(
    wasOn
      ? `Two-factor sign-in of ${username} is off: the password alone signs in until it is turned on again.\n`
      : `Two-factor sign-in of ${username} was not on; nothing changed.\n`,
  );
}
