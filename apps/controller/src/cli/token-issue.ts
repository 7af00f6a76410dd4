import { UsersRepository } from '../auth/users.repository.js';
import { CreateTokenDto } from '../tokens/dto/token.dto.js';
import { issueApiToken } from '../tokens/issue-token.js';
import { TokensRepository } from '../tokens/tokens.repository.js';
import type { WarrenConfig } from '../config/config.js';
import { shellQuote } from '../common/shell-quote.js';
import { openPanelDatabase } from './panel-database.js';
import type { RouteGroup } from '#libs/contracts/route-groups.js';
import { expiresOption, groupsOption } from './token-scope.js';
import { CommandFailed, NO_OWNER, UsageError } from './usage.js';
import { validateOption } from './validate-option.js';

/** The token's scope in words, for the person who issued it. */
function scopeText(scope: { readOnly: boolean; expiresAt: Date | null; routeGroups: string[] | null }): string {
  return [
    scope.readOnly ? 'read-only' : 'read and write',
    scope.expiresAt ? `expires ${scope.expiresAt.toISOString()}` : 'never expires',
    scope.routeGroups ? `route groups ${scope.routeGroups.join(', ')}` : 'every route group',
  ].join(', ');
}

/** Where the panel with this configuration answers, for the example command: WARREN_PUBLIC_URL when set. */
function panelOrigin(config: WarrenConfig): string {
  if (config.publicUrl) return `${config.publicUrl}${config.basePath}`;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const scheme = config.tls.enabled ? 'https' : 'http';
  return `${scheme}://${host.includes(':') ? `[${host}]` : host}:${config.port}${config.basePath}`;
}

/** What `token issue` was given: the name, and the scope options POST /api/tokens has. */
export interface TokenIssueOptions {
  name: string;
  quiet: boolean;
  readOnly?: boolean;
  /** --expires as given (days, a date, or a date-time with a time zone). */
  expires?: string;
  /** --groups as given (comma-separated route groups). */
  groups?: string;
}

export async function tokenIssue(config: WarrenConfig, options: TokenIssueOptions): Promise<void> {
  // The rules are the API's own: the same DTO as POST /api/tokens, each field named as its option.
  const { name, readOnly, expiresAt, routeGroups } = await validateOption(
    CreateTokenDto,
    {
      name: options.name,
      ...(options.readOnly ? { readOnly: true } : {}),
      ...(options.expires !== undefined ? { expiresAt: expiresOption(options.expires) } : {}),
      ...(options.groups !== undefined ? { routeGroups: groupsOption(options.groups) as RouteGroup[] } : {}),
    },
    { name: '--name', readOnly: '--read-only', expiresAt: '--expires', routeGroups: '--groups' },
  );
  const expires = expiresAt ? new Date(expiresAt) : null;
  if (expires && expires.getTime() <= Date.now()) throw new UsageError('--expires must be in the future');
  const scope = {
    readOnly: readOnly ?? false,
    expiresAt: expires,
    routeGroups: routeGroups ? [...routeGroups].sort() : null,
  };
  const log = options.quiet ? () => undefined : (message: string) => console.error(`warren: ${message}`);
  const database = await openPanelDatabase(config, log);
  let issued: { token: string; owner: string };
  try {
    const owner = await new UsersRepository(database.orm).findOwner();
    if (!owner) throw new CommandFailed(NO_OWNER);
    const { token } = await issueApiToken(new TokensRepository(database.orm), owner.id, name, scope);
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
    `API token "${name}" for ${issued.owner} (${scopeText(scope)}; shown only this once; store it now):\n\n` +
      `  ${issued.token}\n\n` +
      `Send it with every request:\n` +
      `  Authorization: Bearer ${issued.token}\n\n` +
      `For example:\n` +
      `  curl ${insecure}-H ${shellQuote(`Authorization: Bearer ${issued.token}`)} ${shellQuote(`${panelOrigin(config)}/api/auth/me`)}\n`,
  );
}
