import { UsersRepository } from '../auth/users.repository.js';
import { CreateTokenDto } from '../tokens/dto/token.dto.js';
import { issueApiToken } from '../tokens/issue-token.js';
import { TokensRepository } from '../tokens/tokens.repository.js';
import type { WarrenConfig } from '../config/config.js';
import { shellQuote } from '../common/shell-quote.js';
import { openPanelDatabase } from './panel-database.js';
import { CommandFailed, NO_OWNER } from './usage.js';
import { validateOption } from './validate-option.js';

/** Where the panel with this configuration answers, for the example command: WARREN_PUBLIC_URL when set. */
function panelOrigin(config: WarrenConfig): string {
  if (config.publicUrl) return `${config.publicUrl}${config.basePath}`;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const scheme = config.tls.enabled ? 'https' : 'http';
  return `${scheme}://${host.includes(':') ? `[${host}]` : host}:${config.port}${config.basePath}`;
}

export async function tokenIssue(config: WarrenConfig, options: { name: string; quiet: boolean }): Promise<void> {
  // The name rule is the API's own: the same DTO as POST /api/tokens.
  const { name } = await validateOption(CreateTokenDto, { name: options.name }, '--name');
  const log = options.quiet ? () => undefined : (message: string) => console.error(`warren: ${message}`);
  const database = await openPanelDatabase(config, log);
  let issued: { token: string; owner: string };
  try {
    const owner = await new UsersRepository(database.orm).findOwner();
    if (!owner) throw new CommandFailed(NO_OWNER);
    const { token } = await issueApiToken(new TokensRepository(database.orm), owner.id, name);
    issued = { token, owner: owner.username };
  } finally {
    await database.close();
  }
  if (options.quiet) {
    process.stdout.write(`${issued.token}\n`);
    return;
  }
  const insecure = config.tls.enabled && !config.tls.certFile ? '-k ' : '';
  process.stdout.write(
    `API token "${name}" for ${issued.owner} (shown only this once; store it now):\n\n` +
      `  ${issued.token}\n\n` +
      `Send it with every request:\n` +
      `  Authorization: Bearer ${issued.token}\n\n` +
      `For example:\n` +
      `  curl ${insecure}-H ${shellQuote(`Authorization: Bearer ${issued.token}`)} ${shellQuote(`${panelOrigin(config)}/api/auth/me`)}\n`,
  );
}
