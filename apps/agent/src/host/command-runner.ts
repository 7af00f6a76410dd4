import { execFile, spawn, type ExecFileException } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';

/**
 * Every host command the agent runs goes through here: execFile, never a shell (interface names
 * and paths are passed as arguments, so nothing in them is interpreted), with a time limit, and
 * failures turned into one typed error. An optional network namespace prefixes every command
 * with `ip netns exec <ns>`: tests run the same code inside a namespace of their own that the
 * agent runs on the host itself.
 */

export type CommandFailure =
  /** The program is not installed (or not on the runner's PATH). */
  | 'not-found'
  /** It ran and exited non-zero (or was killed by a signal other than our time limit). */
  | 'exit'
  /** It ran longer than allowed and was killed. */
  | 'timeout'
  /** It could not be started for another reason (permissions, resources). */
  | 'spawn';

export class CommandError extends Error {
  constructor(
    /** The command as it would be typed, for logs and outcomes (never contains secrets: configs go in files). */
    readonly command: string,
    readonly reason: CommandFailure,
    readonly exitCode: number | null,
    /** Trimmed, and cut to a few kilobytes so an error never carries a whole dump. */
    readonly stderr: string,
    /** Whatever the program printed before failing (e.g. `wg show all dump` when one interface vanished mid-read). */
    readonly stdout: string,
    /** The signal that ended it, other than our time limit's (e.g. SIGPIPE when wireguard-go hangs up on wg). */
    readonly signal: NodeJS.Signals | null = null,
  ) {
    super(CommandError.describe(command, reason, exitCode, stderr, signal));
    this.name = 'CommandError';
  }

  private static describe(
    command: string,
    reason: CommandFailure,
    exitCode: number | null,
    stderr: string,
    signal: NodeJS.Signals | null,
  ): string {
    switch (reason) {
      case 'not-found':
        return `${command}: program not found`;
      case 'timeout':
        return `${command}: timed out`;
      case 'spawn':
        return `${command}: could not start${stderr ? `: ${stderr}` : ''}`;
      default:
        return `${command}: ${exitCode === null ? `killed by ${signal ?? 'a signal'}` : `exit ${exitCode}`}${stderr ? `: ${stderr}` : ''}`;
    }
  }
}

export interface CommandRunnerOptions {
  /** Run every command inside this network namespace (`ip netns exec <ns> …`). */
  namespace?: string;
  /**
   * Program names to paths (or other names), e.g. `{ wg: '/opt/wg/bin/wg' }`; unlisted programs
   * are looked up on PATH. Also how a test makes a tool look missing.
   */
  programs?: Readonly<Record<string, string>>;
  /** Environment of every command (default: this process's). PATH here decides what is found. */
  env?: NodeJS.ProcessEnv;
  /** Per-command time limit unless a call gives its own (default 30 s). */
  timeoutMs?: number;
}

export interface RunOptions {
  timeoutMs?: number;
  /**
   * Run it in a session of its own (`setsid --wait`): what it leaves running (wireguard-go's
   * daemon) is then outside the agent's process group, so a Ctrl-C or a signal to that group (a
   * terminal running `npm start`) does not take the tunnels down with the agent.
   */
  newSession?: boolean;
}

export interface CommandOutput {
  stdout: string;
  stderr: string;
}

export interface Started {
  pid: number;
  /** Settles when the program exits; never rejects. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const DEFAULT_TIMEOUT_MS = 30_000;
// `wg show all dump` is ~170 bytes per peer: 256 MiB leaves room for well over a million peers.
const MAX_OUTPUT_BYTES = 256 * 1024 * 1024;
const MAX_STDERR_IN_ERROR = 4000;
/** What `ip netns exec` prints when the program after it cannot be executed. */
const NETNS_EXEC_FAILED = /exec of "[^"]*" failed: (.*)$/m;

export class CommandRunner {
  readonly namespace: string | undefined;
  private readonly programs: Readonly<Record<string, string>>;
  private readonly env: NodeJS.ProcessEnv;
  private readonly timeoutMs: number;

  constructor(options: CommandRunnerOptions = {}) {
    this.namespace = options.namespace;
    this.programs = options.programs ?? {};
    // C locale: error texts are matched (e.g. "No such file or directory") and shown to operators.
    // LOG_LEVEL is dropped: with it, a daemonizing wireguard-go keeps our stdout/stderr pipes open
    // in its daemon, and run() would wait for the daemon instead of its parent.
    const { LOG_LEVEL: _dropped, ...env } = options.env ?? process.env;
    this.env = { ...env, LC_ALL: 'C' };
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /** The file and arguments actually executed for `program args…` (namespace prefix applied). */
  argv(
    program: string,
    args: readonly string[],
    options: Pick<RunOptions, 'newSession'> = {},
  ): { file: string; args: string[] } {
    const resolved = this.programs[program] ?? program;
    const command = options.newSession
      ? [this.programs.setsid ?? 'setsid', '--wait', resolved, ...args]
      : [resolved, ...args];
    if (this.namespace === undefined) return { file: command[0], args: command.slice(1) };
    return { file: this.programs.ip ?? 'ip', args: ['netns', 'exec', this.namespace, ...command] };
  }

  /** Runs to completion; resolves with its output on exit 0, rejects with a CommandError otherwise. */
  run(program: string, args: readonly string[], options: RunOptions = {}): Promise<CommandOutput> {
    const { file, args: argv } = this.argv(program, args, options);
    const command = [program, ...args].join(' ');
    return new Promise((resolve, reject) => {
      execFile(
        file,
        argv,
        {
          env: this.env,
          encoding: 'utf8',
          maxBuffer: MAX_OUTPUT_BYTES,
          timeout: options.timeoutMs ?? this.timeoutMs,
          // A hung tool gets no chance to linger (SIGTERM can be ignored).
          killSignal: 'SIGKILL',
          windowsHide: true,
        },
        (error, stdout, stderr) => {
          if (!error) resolve({ stdout, stderr });
          else reject(this.toCommandError(command, file, error, stdout, stderr));
        },
      );
    });
  }

  /**
   * Starts a long-running program in the background (own session, output to `logFile` or
   * nowhere) and resolves once it has started: with its pid and a promise of its exit. Under a
   * namespace, `ip netns exec` execs the program in place, so the pid is the program's own.
   * It is not tied to this process: it keeps running if the agent stops.
   */
  start(program: string, args: readonly string[], options: { logFile?: string } = {}): Promise<Started> {
    const { file, args: argv } = this.argv(program, args);
    const command = [program, ...args].join(' ');
    const log = options.logFile === undefined ? 'ignore' : openSync(options.logFile, 'w', 0o600);
    return new Promise((resolve, reject) => {
      const child = spawn(file, argv, { env: this.env, detached: true, stdio: ['ignore', log, log] });
      if (typeof log === 'number') closeSync(log);
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
        child.once('exit', (code, signal) => done({ code, signal })),
      );
      child.once('error', (error: NodeJS.ErrnoException) => {
        reject(new CommandError(command, error.code === 'ENOENT' ? 'not-found' : 'spawn', null, error.message, ''));
      });
      child.once('spawn', () => {
        child.unref();
        resolve({ pid: child.pid!, exited });
      });
    });
  }

  private toCommandError(
    command: string,
    file: string,
    error: ExecFileException,
    stdout: string,
    stderr: string,
  ): CommandError {
    const text = trimmed(stderr);
    // Node reports a missing executable as an errno string in `code`; a non-zero exit as a number.
    if (typeof error.code === 'string') {
      const reason = error.code === 'ENOENT' ? 'not-found' : 'spawn';
      // Under a namespace a missing `ip` is the only ENOENT possible; say which program it was.
      const which = reason === 'not-found' && file !== command.split(' ')[0] ? `${command} (via ${file})` : command;
      return new CommandError(which, reason, null, text || error.message, stdout);
    }
    if (error.killed && error.signal === 'SIGKILL') return new CommandError(command, 'timeout', null, text, stdout);
    const exitCode = typeof error.code === 'number' ? error.code : null;
    // `ip netns exec` exits 255 with this message when the program itself is missing.
    const netnsExec = this.namespace === undefined ? null : NETNS_EXEC_FAILED.exec(text);
    if (netnsExec) {
      const reason = /No such file or directory/.test(netnsExec[1]) ? 'not-found' : 'spawn';
      return new CommandError(command, reason, exitCode, text, stdout);
    }
    return new CommandError(command, 'exit', exitCode, text, stdout, exitCode === null ? (error.signal ?? null) : null);
  }
}

function trimmed(text: string): string {
  const t = text.trim();
  return t.length > MAX_STDERR_IN_ERROR ? `${t.slice(0, MAX_STDERR_IN_ERROR)}…` : t;
}

/** An error's message for an outcome: CommandErrors already name the command. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
