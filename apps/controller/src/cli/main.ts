import { parseArgs } from 'node:util';
import { loadConfigOrReport } from '../config/config.js';
import { CommandFailed, tokenIssue } from './token-issue.js';
import { USAGE, UsageError } from './usage.js';

/** `warren`: the panel's command line. Exit codes: 0 done, 1 the command failed, 2 wrong usage or configuration. */
async function run(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: { name: { type: 'string' }, quiet: { type: 'boolean', short: 'q' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const command = positionals.join(' ');
  if (command !== 'token issue') {
    throw new UsageError(command ? `unknown command "${command}"` : 'no command given');
  }
  if (values.name === undefined) throw new UsageError('token issue needs --name NAME');
  const config = loadConfigOrReport();
  if (!config) return 2;
  await tokenIssue(config, { name: values.name, quiet: values.quiet ?? false });
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
    console.error(`warren: ${error instanceof CommandFailed ? '' : 'failed: '}${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
