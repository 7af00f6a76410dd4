import type { WarrenConfig } from '../config/config.js';
import { TokensRepository, type TokenView } from '../tokens/tokens.repository.js';
import { withPanelDatabase } from './panel-database.js';
import { CommandFailed } from './usage.js';
import { table } from './table.js';

const withTokens = <T>(config: WarrenConfig, quiet: boolean, use: (tokens: TokensRepository) => Promise<T>) =>
  withPanelDatabase(config, quiet, (orm) => use(new TokensRepository(orm)));

/** `warren token list [--json]`: every API token, never its secret. */
export async function tokenList(config: WarrenConfig, options: { json: boolean }): Promise<void> {
  const tokens = await withTokens(config, options.json, (repository) => repository.list({}));
  if (options.json) {
    process.stdout.write(`${JSON.stringify(tokens, null, 2)}\n`);
    return;
  }
  if (tokens.length === 0) {
    process.stdout.write('No API tokens. Issue one with: warren token issue --name NAME\n');
    return;
  }
  process.stdout.write(
    table(
      ['ID', 'NAME', 'HINT', 'STATE', 'OWNER', 'LAST USED', 'CREATED'],
      tokens.map((token) => [
        token.id,
        token.name,
        token.hint,
        token.enabled ? 'enabled' : 'revoked',
        token.owner,
        token.lastUsedAt?.toISOString() ?? 'never',
        token.createdAt.toISOString(),
      ]),
    ),
  );
}

/** `warren token revoke ID|NAME`: disables the token at once (the API's `enabled: false`); it stays listed. */
export async function tokenRevoke(config: WarrenConfig, which: string): Promise<void> {
  const revoked = await withTokens(config, false, async (repository) => {
    const matches = (await repository.list({})).filter((token) => token.id === which || token.name === which);
    if (matches.length === 0)
      throw new CommandFailed(`no API token with the id or name "${which}" (warren token list shows them)`);
    if (matches.length > 1)
      throw new CommandFailed(
        `${matches.length} tokens are named "${which}": revoke one by its id (${matches.map((token) => token.id).join(', ')})`,
      );
    return (await repository.update({}, matches[0].id, { enabled: false })) as TokenView;
  });
  process.stdout.write(
    `API token "${revoked.name}" (${revoked.id}) is revoked: requests carrying it are refused from now on.\n`,
  );
}
