import { pino, stdSerializers, stdTimeFunctions, type DestinationStream, type Logger } from 'pino';
import { PinoPretty } from 'pino-pretty';
import { logContext } from './log-context.js';
import { redactFields, scrubText } from './redact.js';

export type { Logger } from 'pino';

/** The levels operators set (WARREN_LOG_LEVEL, the agent's --log-level), in Nest's words. */
export type WarrenLogLevel = 'error' | 'warn' | 'log' | 'debug';

const PINO_LEVELS: Record<WarrenLogLevel, string> = { error: 'error', warn: 'warn', log: 'info', debug: 'debug' };

export interface LoggerOptions {
  /** `warren` or `warren-agent`: which process wrote the line. */
  name: string;
  level: WarrenLogLevel;
  /**
   * Human-readable lines instead of JSON. Default: when stdout is a terminal (someone is
   * watching); JSON otherwise (journald, docker, a log shipper).
   */
  pretty?: boolean;
  /** Where every line goes; default: warnings and errors to stderr, the rest to stdout (as Nest's own logger did). */
  destination?: DestinationStream;
  /**
   * Every line to stderr: for a command whose stdout is its result (`warren … --json | jq`).
   * `pretty` then defaults to whether stderr is a terminal.
   */
  stderrOnly?: boolean;
}

/** Writes through process.stdout/stderr as they are at each write (so a test's tap on them sees the lines). */
const stdout: DestinationStream = { write: (line: string) => void process.stdout.write(line) };
const stderr: DestinationStream = { write: (line: string) => void process.stderr.write(line) };

/**
 * In the terminal, a request line is one line, `GET /api/nodes 200 3.1 ms (reqId)`: pino-pretty
 * would print each of its six fields on a line of its own, and at a few requests a second the
 * owner's password printed at the first start scrolled away. JSON lines keep every field.
 */
export function oneLineRequest(line: string): string {
  if (!line.includes('"msg":"request answered"')) return line;
  const {
    reqId,
    method,
    path,
    route: _route,
    status,
    ms,
    msg: _msg,
    ...rest
  } = JSON.parse(line) as Record<string, unknown>;
  return `${JSON.stringify({ ...rest, msg: `${String(method)} ${String(path)} ${String(status)} ${String(ms)} ms (${String(reqId)})` })}\n`;
}

function prettyTo(fd: 1 | 2): DestinationStream {
  const pretty = prettyStream(fd);
  return { write: (line: string) => void pretty.write(oneLineRequest(line)) };
}

function prettyStream(fd: 1 | 2): DestinationStream {
  return PinoPretty({
    colorize: Boolean((fd === 1 ? process.stdout : process.stderr).isTTY),
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,name,context',
    messageFormat: '{if context}[{context}] {end}{msg}',
    destination: fd,
    sync: true,
  });
}

const WARN = 40;

/**
 * Warnings and worse to stderr, the rest to stdout, each line once. pino tells a stream that asks
 * for it (pino.metadata) the level of the line it is about to write; cheaper than multistream.
 */
function standardStreams(pretty: boolean): DestinationStream {
  const [out, err] = pretty ? [prettyTo(1), prettyTo(2)] : [stdout, stderr];
  return {
    [Symbol.for('pino.metadata')]: true,
    lastLevel: 0,
    write(this: { lastLevel: number }, line: string) {
      (this.lastLevel >= WARN ? err : out).write(line);
    },
  } as DestinationStream;
}

/**
 * The process's one pino logger: JSON lines with time, level, name, the request or job id of the
 * work running (log-context.ts) and the Nest context; secrets redacted (redact.ts).
 */
export function createLogger(options: LoggerOptions): Logger {
  const pretty = options.pretty ?? Boolean((options.stderrOnly ? process.stderr : process.stdout).isTTY);
  const destination =
    options.destination ?? (options.stderrOnly ? (pretty ? prettyTo(2) : stderr) : standardStreams(pretty));
  return pino(
    {
      name: options.name,
      level: PINO_LEVELS[options.level],
      base: { pid: process.pid },
      timestamp: stdTimeFunctions.isoTime,
      formatters: { log: redactFields },
      // The request or job this line belongs to; a field given on the line itself wins. A copy:
      // pino merges the line's fields into what the mixin returns, which must not be the context.
      mixin: () => ({ ...logContext.getStore() }),
      serializers: {
        err: (error: Error) => {
          const serialized = stdSerializers.err(error);
          serialized.message = scrubText(serialized.message ?? '');
          if (serialized.stack) serialized.stack = scrubText(serialized.stack);
          return serialized;
        },
      },
      hooks: {
        // Messages are sentences services wrote: scrub secret-shaped text from every string part.
        logMethod(args, method) {
          for (let i = 0; i < args.length; i++) if (typeof args[i] === 'string') args[i] = scrubText(args[i] as string);
          return method.apply(this, args as Parameters<typeof method>);
        },
      },
    },
    destination,
  );
}
