import { hostname } from 'node:os';
import type { Node } from '../revisions/node.entity.js';
import type { NodesRepository } from './nodes.repository.js';

/**
 * The host the controller runs on is a node from the first start, so a fresh install manages
 * itself. Runs before Nest starts (panel.ts builds the repository with `new`).
 *
 * A missing local node is made again only when `create` says so: when this controller runs the
 * local agent (it needs its node), or on the first start (a fresh database). With
 * WARREN_LOCAL_AGENT=off the local node is unmanaged and may be deleted, and then it stays
 * deleted across restarts until the local agent is turned on again.
 */
export async function ensureLocalNode(nodes: NodesRepository, create: boolean): Promise<Node | null> {
  const existing = await nodes.findLocal();
  if (existing || !create) return existing;
  const name = hostname().slice(0, 64) || 'local';
  return nodes.insertLocal((await nodes.nameTaken(name)) ? `${name.slice(0, 58)}-local` : name);
}
