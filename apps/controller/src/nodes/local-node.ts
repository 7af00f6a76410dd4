import { hostname } from 'node:os';
import type { Node } from '../revisions/node.entity.js';
import type { NodesRepository } from './nodes.repository.js';

/**
 * The host the controller runs on is a node from the first start, so a fresh install manages
 * itself. Runs before Nest starts (panel.ts builds the repository with `new`).
 */
export async function ensureLocalNode(nodes: NodesRepository): Promise<Node> {
  const existing = await nodes.findLocal();
  if (existing) return existing;
  const name = hostname().slice(0, 64) || 'local';
  return nodes.insertLocal((await nodes.nameTaken(name)) ? `${name.slice(0, 58)}-local` : name);
}
