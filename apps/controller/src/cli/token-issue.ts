import { UsersRepository } from '../auth/users.repository.js';
import { CreateTokenDto } from '../tokens/dto/token.dto.js';
import { issueApiToken } from '../tokens/issue-token.js';
import { TokensRepository } from '../tokens/tokens.repository.js';
import type { WarrenConfig } from '../config/config.js';
import { embeddedClusterExists } from '../database/embedded-postgres.js';
import { ApiError } from '../http/api-error.js';
import { StrictValidationPipe } from '../http/validation.js';
import { openPanelDatabase } from './panel-database.js';
import { UsageError } from './usage.js';

/** Something the command could not do (no owner yet, database unreachable): exit code 1. */
export class CommandFailed extends Error {}

/** The name rule is the API's own: the same DTO and validation pipe as POST /api/tokens. */
async function validateName(name: string): Promise<string> {
  try {
    const dto = (await new StrictValidationPipe().transform({ name }, { type: 'body', metatype: CreateTokenDto })) as CreateTokenDto;
    return dto.name;
  } catch (error) {
    if (error instanceof ApiError) throw new UsageError(`--name: ${error.message}`);
    throw error;
  }
}

/** Where the panel with this configuration answers, for the example command. */
function panelOrigin(config: WarrenConfig): string {
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const scheme = config.tls.enabled ? 'https' : 'http';
  return `${scheme}://${host.includes(':') ? `[${host}]` : host}:${config.port}${config.basePath}`;
}

const NO_OWNER = 'there is no owner account yet: start the panel once (npm start) to create it, then issue tokens';

export async function tokenIssue(config: WarrenConfig, options: { name: string; quiet: boolean }): Promise<void> {
  const name = await validateName(options.name);
  // Never started here: no cluster, so no owner. Do not create a database as a side effect.
  if (!config.databaseUrl && !embeddedClusterExists(config.dataDir)) throw new CommandFailed(NO_OWNER);
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
      `  curl ${insecure}-H 'Authorization: Bearer ${issued.token}' ${panelOrigin(config)}/api/auth/me\n`,
  );
}
