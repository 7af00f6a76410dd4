import type { MikroORM } from '@mikro-orm/postgresql';
import { hostname } from 'node:os';
import { Node } from '../revisions/node.entity.js';

/** The host the controller runs on is a node from the first start, so a fresh install manages itself. */
export async function ensureLocalNode(orm: MikroORM): Promise<Node> {
  const em = orm.em.fork();
  const existing = await em.findOne(Node, { isLocal: true });
  if (existing) return existing;
  const name = hostname().slice(0, 64) || 'local';
  const taken = await em.count(Node, { name });
  const node = em.create(Node, { name: taken ? `${name.slice(0, 58)}-local` : name, address: '127.0.0.1', isLocal: true });
  await em.flush();
  return node;
}
