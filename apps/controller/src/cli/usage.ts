export const USAGE = `Usage: warren <command> [options]

Commands:
  token issue --name NAME [--quiet]   Issue an API token for the owner account and print it once.
                                      --name   1..64 characters, no control characters
                                      --quiet  print the token alone (for scripts)

Options:
  -h, --help                          Show this help.

The command works on the panel's own database, whether or not the panel is running: DATABASE_URL
when set, otherwise the embedded PostgreSQL in WARREN_DATA_DIR (default ./data), which it starts
and stops itself when no panel is running it. It reads the same environment as the panel.
`;

/** A mistake in how the command was called: reported with a hint, exit code 2. */
export class UsageError extends Error {}
