import { Command, Redis, type RedisOptions } from 'ioredis';
import { createHash } from 'node:crypto';

/** While the controller has not loaded the scripts again (a Redis that restarted empty), how often and how long to retry. */
const NOSCRIPT_RETRY_MS = 1000;
const NOSCRIPT_RETRIES = 120;

type Container = {
  isPipeline?: boolean;
  redis?: { sendCommand(command: Command): unknown };
  sendCommand(command: Command): unknown;
};
type Script = {
  execute(
    container: Container,
    args: ConstructorParameters<typeof Command>[1] & unknown[],
    options: object,
    callback?: (error: Error | null, result?: unknown) => void,
  ): unknown;
};

/**
 * The agent's Redis client. Its Redis user may run only the Lua scripts its controller loaded
 * (BullMQ's, by SHA: nodes/enrolment/agent-queue-access.ts), never send its own: no EVAL, no
 * SCRIPT LOAD. ioredis runs a script by sending EVAL with the whole text the first time on each
 * connection and after NOSCRIPT; here every script goes as EVALSHA, and NOSCRIPT (scripts not
 * loaded yet after a Redis restart) is answered by waiting for the controller to load them.
 */
export class EvalshaOnlyRedis extends Redis {
  override defineCommand(name: string, definition: { lua: string; numberOfKeys?: number; readOnly?: boolean }): void {
    super.defineCommand(name, definition);
    const sha = createHash('sha1').update(definition.lua).digest('hex');
    const script = (this.scriptsSet as Record<string, Script>)[name];
    script.execute = (container, args, options, callback) => {
      if (typeof definition.numberOfKeys === 'number') args.unshift(definition.numberOfKeys);
      const evalsha = (): Command => new Command('evalsha', [sha, ...args], options);
      const first = evalsha();
      // Replaced before it is sent: a pipeline reads the command's promise when it is queued.
      first.promise = first.promise.catch(async function retry(error: Error, attempt = 1): Promise<unknown> {
        if (!error.message.includes('NOSCRIPT') || attempt > NOSCRIPT_RETRIES) throw error;
        await new Promise((resolve) => setTimeout(resolve, NOSCRIPT_RETRY_MS));
        const again = evalsha();
        (container.isPipeline ? container.redis! : container).sendCommand(again);
        return again.promise.catch((next: Error) => retry(next, attempt + 1));
      });
      if (callback)
        first.promise.then(
          (result) => callback(null, result),
          (error: Error) => callback(error),
        );
      return container.sendCommand(first);
    };
  }

  /** BullMQ duplicates the connection for its blocking reads: the copy must send EVALSHA too. */
  override duplicate(override?: Partial<RedisOptions>): Redis {
    return new EvalshaOnlyRedis({ ...this.options, ...override });
  }
}
