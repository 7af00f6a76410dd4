import { Redis } from 'ioredis';
import { REDIS_URL } from './database.js';

/**
 * Removes what a panel left in Redis under a queue prefix: every key `<prefix>:*` and every
 * per-node ACL user `<prefix>-node-*` (the controller makes one per enrolled node).
 */
export async function dropRedisPrefix(prefix, url = REDIS_URL) {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
    const users = (await redis.call('ACL', 'USERS')).filter((user) => user.startsWith(`${prefix}-node-`));
    for (let i = 0; i < users.length; i += 200) await redis.call('ACL', 'DELUSER', ...users.slice(i, i + 200));
    return { users: users.length };
  } finally {
    redis.disconnect();
  }
}

export async function redisVersion(url = REDIS_URL) {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return (await redis.info('server')).match(/redis_version:(\S+)/)?.[1];
  } catch {
    return undefined;
  } finally {
    redis.disconnect();
  }
}
