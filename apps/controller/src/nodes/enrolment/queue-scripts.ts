import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';

interface BullmqScript {
  name: string;
  content: string;
  keys: number;
}

/**
 * BullMQ's Lua scripts, as its own Redis connections define them (bullmq/dist/.../scripts: the
 * same package and version the agents run, pinned in package.json). Its CommonJS build: the ESM
 * one is not marked as a module for Node. Agents may run exactly these, by SHA, and nothing else
 * (agent-queue-access.ts); the controller loads them into Redis so those SHAs are there.
 */
const scripts = createRequire(import.meta.url)('bullmq/dist/cjs/scripts/index.js') as Record<string, BullmqScript>;

export const QUEUE_SCRIPTS: readonly { sha: string; lua: string }[] = Object.values(scripts)
  .filter((script) => typeof script?.content === 'string')
  .map((script) => ({ sha: createHash('sha1').update(script.content).digest('hex'), lua: script.content }));
