import { Redis } from 'ioredis';
import { createHash, randomBytes } from 'node:crypto';
import { nodeQueueName } from '#libs/contracts/node-queue.js';
import type { QueueAccess } from '#libs/contracts/agent-link.js';
import type { WarrenConfig } from '../../config/config.js';
import { QUEUE_SCRIPTS } from './queue-scripts.js';

/**
 * The commands a BullMQ worker needs, and nothing that reads across keys: Redis checks every
 * command a Lua script runs as well, and the key pattern limits each to the node's own queue.
 * Not `+@all -@dangerous`: SCAN and KEYS would then list every node's key names. Lua only as
 * EVALSHA of BullMQ's own scripts, each allowed by its SHA (Redis 7's first-argument rule): no
 * EVAL and no SCRIPT LOAD, so a node cannot run Lua of its own in the shared Redis (a script
 * runs atomically: one long loop would stall every node and the controller).
 */
const WORKER_COMMANDS = [
  '+@string',
  '+@hash',
  '+@list',
  '+@set',
  '+@sortedset',
  '+@stream',
  '-keys',
  '-scan',
  '-sort',
  '-sort_ro',
  '-migrate',
  '-sintercard', // key-listing or cross-key
  '+del',
  '+unlink',
  '+exists',
  '+type',
  '+expire',
  '+pexpire',
  '+pexpireat',
  '+ttl',
  '+pttl',
  '+persist',
  '+rename',
  '+renamenx',
  '+hello',
  '+auth',
  '+ping',
  '+quit',
  '+client|setname',
  '+client|getname',
  '+client|id',
  '+info',
  '+select',
  '+time',
  ...QUEUE_SCRIPTS.map(({ sha }) => `+evalsha|${sha}`),
  '+multi',
  '+exec',
  '+discard',
  '+watch',
  '+unwatch',
];

export function agentRedisUsername(prefix: string, nodeId: string): string {
  return `${prefix}-node-${nodeId}`;
}

/**
 * Gives each node's agent its own Redis user limited to the keys of its own queue, so one host
 * can never read another node's jobs (which carry that node's private keys). In PostgreSQL queue
 * mode there is no per-node isolation to give: only the local agent may connect (docs/agents.md).
 */
export class AgentQueueAccess {
  private admin?: Redis;

  constructor(private readonly config: WarrenConfig) {}

  get kind(): QueueAccess['kind'] {
    return this.config.redisUrl ? 'redis' : 'postgres';
  }

  /**
   * Creates or re-keys the node's Redis user; the old password stops working at once, and so do
   * connections already logged in with it (Redis keeps those authenticated through a re-key: a
   * lost host enrolled again would go on reading the node's jobs). `record` keeps the password's
   * hash before Redis gets it (see restore()).
   */
  async grant(nodeId: string, record: (passwordHash: string) => Promise<void>): Promise<QueueAccess> {
    if (!this.config.redisUrl) return { kind: 'postgres' };
    const password = randomBytes(32).toString('base64url');
    const hash = createHash('sha256').update(password).digest('hex');
    const username = agentRedisUsername(this.config.queuePrefix, nodeId);
    await record(hash);
    await this.loadScripts();
    await this.setUser(nodeId, hash);
    await this.redis().call('CLIENT', 'KILL', 'USER', username);
    return {
      kind: 'redis',
      url: this.config.agentRedisUrl ?? this.config.redisUrl,
      username,
      password,
      prefix: this.config.queuePrefix,
    };
  }

  /** Puts a node's user back as grant() made it, with the same password (its agent's retries then log in). */
  async restore(nodeId: string, passwordHash: string): Promise<void> {
    await this.setUser(nodeId, passwordHash);
  }

  /**
   * Calls `restore` each time the controller's own connection to Redis is (re)established: a
   * Redis that restarted without persistence, or a promoted replica, has no agent users (and no
   * scripts: restore loads them first, so an agent that logs in again finds them).
   */
  watch(restore: () => Promise<void>): void {
    if (!this.config.redisUrl) return;
    this.redis().on('ready', () => void restore());
  }

  /** Loads BullMQ's scripts into Redis (the only Lua agents may run, by SHA); loading one again changes nothing. */
  async loadScripts(): Promise<void> {
    if (!this.config.redisUrl) return;
    const pipeline = this.redis().pipeline();
    for (const { lua } of QUEUE_SCRIPTS) pipeline.script('LOAD', lua);
    const results = (await pipeline.exec()) ?? [];
    const failed = results.find(([error]) => error);
    if (failed) throw failed[0];
  }

  private async setUser(nodeId: string, passwordHash: string): Promise<void> {
    const username = agentRedisUsername(this.config.queuePrefix, nodeId);
    const keys = `~${this.config.queuePrefix}:${nodeQueueName(nodeId)}:*`;
    await this.redis().call(
      'ACL',
      'SETUSER',
      username,
      'reset',
      'on',
      `#${passwordHash}`,
      keys,
      'resetchannels',
      '-@all',
      ...WORKER_COMMANDS,
    );
  }

  /** Removes the node's Redis user (node deleted); its open connections are closed by Redis. */
  async revoke(nodeId: string): Promise<void> {
    if (!this.config.redisUrl) return;
    await this.redis().call('ACL', 'DELUSER', agentRedisUsername(this.config.queuePrefix, nodeId));
  }

  async close(): Promise<void> {
    this.admin?.disconnect();
    this.admin = undefined;
  }

  private redis(): Redis {
    if (!this.admin) {
      this.admin = new Redis(this.config.redisUrl!, { maxRetriesPerRequest: 1 });
      this.admin.on('error', () => undefined); // a failed grant is reported to its caller
    }
    return this.admin;
  }
}
