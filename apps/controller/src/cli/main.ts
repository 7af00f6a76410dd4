import { parseArgs } from 'node:util';
import { loadConfigOrReport, type WarrenConfig } from '../config/config.js';
import type { CliAudit } from './cli-audit.js';
import { CommandFailed, USAGE, UsageError } from './usage.js';

interface Options {
  name?: string;
  quiet?: boolean;
  json?: boolean;
  username?: string;
  'password-stdin'?: boolean;
  temporary?: boolean;
  'read-only'?: boolean;
  expires?: string;
  groups?: string;
}

const OPTION_NAMES = [
  'name',
  'quiet',
  'json',
  'username',
  'password-stdin',
  'temporary',
  'read-only',
  'expires',
  'groups',
] as const;

/**
 * Each command: the options it takes, how many positional arguments follow its words, and what it
 * does. Commands load their code when they run (the ORM, Nest's DTOs...), so that help and usage
 * errors answer at once.
 */
const COMMANDS: Record<
  string,
  {
    options: (keyof Options)[];
    args: number;
    /** A command that changes the panel is recorded in the audit log (docs/audit.md): say what it changes. */
    audit?: CliAudit;
    run(config: WarrenConfig, options: Options, args: string[]): Promise<void>;
  }
> = {
  'token issue': {
    options: ['name', 'quiet', 'read-only', 'expires', 'groups'],
    args: 0,
    audit: {
      target: 'tokens',
      changes: (options) => [
        { field: 'name', new: options.name },
        ...(options['read-only'] ? [{ field: 'readOnly', new: true }] : []),
        ...(options.expires !== undefined ? [{ field: 'expires', new: options.expires }] : []),
        ...(options.groups !== undefined ? [{ field: 'groups', new: options.groups }] : []),
      ],
    },
    run(config, options) {
      if (options.name === undefined) throw new UsageError('token issue needs --name NAME');
      const name = options.name;
      return import('./token-issue.js').then(({ tokenIssue }) =>
        tokenIssue(config, {
          name,
          quiet: options.quiet ?? false,
          readOnly: options['read-only'],
          expires: options.expires,
          groups: options.groups,
        }),
      );
    },
  },
  'token list': {
    options: ['json'],
    args: 0,
    run: async (config, options) =>
      (await import('./token-commands.js')).tokenList(config, { json: options.json ?? false }),
  },
  'token revoke': {
    options: [],
    args: 1,
    audit: { target: 'tokens', targetId: ([which]) => which, changes: () => [{ field: 'enabled', new: false }] },
    run: async (config, _, [which]) => (await import('./token-commands.js')).tokenRevoke(config, which),
  },
  status: {
    options: ['json'],
    args: 0,
    run: async (config, options) => (await import('./status.js')).status(config, { json: options.json ?? false }),
  },
  'backup create': {
    options: ['json'],
    args: 0,
    audit: { target: 'backups' },
    run: async (config, options) =>
      (await import('./backup-commands.js')).backupCreate(config, { json: options.json ?? false }),
  },
  'backup list': {
    options: ['json'],
    args: 0,
    run: async (config, options) =>
      (await import('./backup-commands.js')).backupList(config, { json: options.json ?? false }),
  },
  'backup restore': {
    options: ['json'],
    args: 1,
    audit: { target: 'backups', targetId: ([name]) => name },
    run: async (config, options, [name]) =>
      (await import('./backup-commands.js')).backupRestore(config, name, { json: options.json ?? false }),
  },
  migrate: {
    options: [],
    args: 0,
    audit: { target: 'database' },
    run: async (config) => (await import('./migrate.js')).migrate(config),
  },
  'admin reset-password': {
    options: ['username', 'password-stdin', 'temporary'],
    args: 0,
    audit: {
      target: 'users',
      targetId: (_, options) => (typeof options.username === 'string' ? options.username : undefined),
      changes: () => [{ field: 'password', secret: true }],
    },
    run: async (config, options) =>
      (await import('./reset-password.js')).resetPassword(config, {
        username: options.username,
        passwordStdin: options['password-stdin'] ?? false,
        temporary: options.temporary ?? false,
      }),
  },
  'admin list': {
    options: ['json'],
    args: 0,
    run: async (config, options) =>
      (await import('./admin-commands.js')).adminList(config, { json: options.json ?? false }),
  },
  'admin enable': {
    options: [],
    args: 1,
    run: async (config, _, [username]) => (await import('./admin-commands.js')).adminSetEnabled(config, username, true),
  },
  'admin disable': {
    options: [],
    args: 1,
    run: async (config, _, [username]) =>
      (await import('./admin-commands.js')).adminSetEnabled(config, username, false),
  },
  'admin reset-2fa': {
    options: ['username'],
    args: 0,
    run: async (config, options) =>
      (await import('./reset-2fa.js')).resetTwoFactor(config, { username: options.username }),
  },
};

/** `warren`: the panel's command line. Exit codes: 0 done, 1 the command failed, 2 wrong usage or configuration. */
async function run(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        name: { type: 'string' },
        quiet: { type: 'boolean', short: 'q' },
        json: { type: 'boolean' },
        username: { type: 'string' },
        'password-stdin': { type: 'boolean' },
        temporary: { type: 'boolean' },
        'read-only': { type: 'boolean' },
        expires: { type: 'string' },
        groups: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  // The longest run of words that names a command; what follows are its arguments.
  const words = Object.keys(COMMANDS)
    .map((name) => name.split(' '))
    .filter((name) => name.every((word, i) => positionals[i] === word))
    .sort((a, b) => b.length - a.length)[0];
  if (!words)
    throw new UsageError(positionals.length ? `unknown command "${positionals.join(' ')}"` : 'no command given');
  const name = words.join(' ');
  const command = COMMANDS[name];
  const args = positionals.slice(words.length);
  if (args.length !== command.args)
    throw new UsageError(
      `${name} takes ${command.args || 'no'} argument${command.args === 1 ? '' : 's'}, got ${args.length}`,
    );
  const given = OPTION_NAMES.filter((option) => values[option] !== undefined);
  const foreign = given.find((option) => !command.options.includes(option));
  if (foreign) throw new UsageError(`${name} does not take --${foreign}`);
  const config = loadConfigOrReport();
  if (!config) return 2;
  // What the code a command shares with the panel logs (a restore, retention) goes to stderr:
  // stdout is the command's result alone, so that `warren … --json | jq` parses.
  const [{ Logger }, { createLogger, NestPinoLogger }] = await Promise.all([
    import('@nestjs/common'),
    import('#libs/logging/index.js'),
  ]);
  Logger.overrideLogger(
    new NestPinoLogger(
      createLogger({
        name: 'warren',
        level: config.logLevel,
        stderrOnly: true,
        ...(config.logFormat ? { pretty: config.logFormat === 'pretty' } : {}),
      }),
    ),
  );
  if (command.audit) {
    const { runAudited } = await import('./cli-audit.js');
    await runAudited(name, command.audit, args, values, () => command.run(config, values, args));
  } else await command.run(config, values, args);
  return 0;
}

// process.exit, not exitCode: pools and timers of a library must not keep a finished command alive.
run(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError) {
      console.error(`warren: ${error.message}\nRun "warren --help" for usage.`);
      process.exit(2);
    }
    console.error(
      `warren: ${error instanceof CommandFailed ? '' : 'failed: '}${error instanceof Error ? error.message : String(error)}`,
    );
    process.exit(1);
  },
);
