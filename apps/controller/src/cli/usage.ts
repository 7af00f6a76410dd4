export const USAGE = `Usage: warren <command> [options]

Commands:
  token issue --name NAME [--quiet] [--read-only] [--expires DAYS|DATE] [--groups G1,G2]
                                      Issue an API token for the owner account and print it once.
                                      --name       1..64 characters, no control characters
                                      --quiet      print the token alone (for scripts)
                                      --read-only  only GET routes
                                      --expires    30 (days from now), 2027-01-31 (works through
                                                   that day, UTC), or a date-time with a time zone
                                      --groups     only these route groups (GET /api/docs), e.g.
                                                   clients,devices
  token list [--json]                 List API tokens (never their secrets).
  token revoke ID|NAME                Revoke a token at once (it stays listed, disabled).
  status [--json]                     Nodes: agent state, sync state, queue backlog.
  backup create [--json]              Make a backup now (progress on stderr); prints its name.
  backup list [--json]                List the backups in WARREN_BACKUP_DIR, newest first.
  backup restore NAME [--json]        Check the archive, then restore it in one transaction (progress
                                      on stderr); a running panel sends every node the restored state,
                                      else the panel does when it starts. Migrates the database first.
  migrate                             Bring the database schema up to date (start does too).
  admin reset-password [--username NAME] [--password-stdin] [--temporary]
                                      Set a new password for the owner account (or NAME) and end
                                      all of its sessions; its API tokens stay. Prints a generated
                                      password once, unless --password-stdin reads one line
                                      (8..1024 characters) from standard input. --temporary: it
                                      must be changed at the next sign-in.
  admin list [--json]                 List the panel's users: role, state, sessions (no passwords).
  admin enable USERNAME               Let a disabled user sign in again.
  admin disable USERNAME              Disable a user: sessions end, API tokens are refused (never
                                      the last enabled owner).
  admin reset-2fa [--username NAME]   Turn off two-factor sign-in of the owner account (or NAME):
                                      its TOTP secret and recovery codes are forgotten, so the
                                      password alone signs in; sessions and API tokens stay.

Options:
  --json                              Machine-readable output: the JSON alone on stdout (logs and
                                      progress go to stderr).
  -h, --help                          Show this help.

Exit codes: 0 done; 1 the command failed (database unreachable, no such token...); 2 wrong
usage or configuration.

The command works on the panel's own database, whether or not the panel is running: DATABASE_URL
when set, otherwise the embedded PostgreSQL in WARREN_DATA_DIR (default ./data), which it starts
and stops itself when no panel is running it. It reads the same environment as the panel. Only
migrate and backup restore change the schema: the other commands refuse (exit 1) a database that
is empty, another application's, or lacks this version's migrations.
`;

/** A mistake in how the command was called: reported with a hint, exit code 2. */
export class UsageError extends Error {}

/** Something the command could not do (no owner yet, no such user or token, database unreachable): exit code 1. */
export class CommandFailed extends Error {}

export const NO_OWNER = 'there is no owner account yet: start the panel once (npm start) to create it';
