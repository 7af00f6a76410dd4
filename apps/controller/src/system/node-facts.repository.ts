import { Inject, Injectable } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import type { Capabilities } from '#libs/contracts/agent-link.js';
import type { PreparedPool } from '../database/prepared-pool.js';
import { PREPARED_POOL } from '../runtime.js';

/** A node with what its agent last said about itself, as the snapshot needs it. */
export interface NodeFacts {
  id: string;
  name: string;
  isLocal: boolean;
  desiredRevision: number;
  appliedRevision: number;
  hasCredential: boolean;
  connected: boolean;
  lastSeenAt: Date | null;
  version: string | null;
  capabilities: Capabilities | null;
  gaps: string[];
}

interface Row {
  id: string;
  name: string;
  is_local: boolean;
  desired_revision: number;
  applied_revision: number;
  has_credential: boolean;
  connected: boolean;
  last_seen_ms: number | null;
  version: string | null;
  capabilities: Capabilities | null;
  gaps: string[] | null;
}

/**
 * The nodes as the snapshot needs them. SQL by table name rather than through the nodes
 * entities: system/ sits below nodes/ in the one-way dependency order (nodes uses agent-state.ts
 * and SystemService), so it may not import nodes/. Read as plain columns, not entities: the
 * snapshot runs on every GET /api/system and GET /api/overview/full, so `all()` is a named
 * prepared statement (planned once per connection, docs/overview.md) and needs no identity map.
 */
@Injectable()
export class NodeFactsRepository {
  constructor(
    @Inject(MikroORM) private readonly orm: MikroORM,
    @Inject(PREPARED_POOL) private readonly prepared: PreparedPool,
  ) {}

  /** Every node and its agent row in one query, in the nodes list's order (the local node first). */
  async all(): Promise<NodeFacts[]> {
    const rows = await this.prepared.query<Row>(
      'system-node-facts',
      `select n.id, n.name, n.is_local,
              n.desired_revision::float8 as desired_revision, n.applied_revision::float8 as applied_revision,
              coalesce(a.credential_hash is not null, false) as has_credential,
              coalesce(a.connected, false) as connected,
              (extract(epoch from a.last_seen_at) * 1000)::float8 as last_seen_ms,
              a.version, a.capabilities, a.gaps
         from nodes n left join node_agents a on a.node_id = n.id
        order by n.is_local desc, n.name asc`,
      [],
    );
    return rows.map((row) => ({
      id: row.id,
      name: row.name,
      isLocal: row.is_local,
      desiredRevision: row.desired_revision,
      appliedRevision: row.applied_revision,
      hasCredential: row.has_credential,
      connected: row.connected,
      lastSeenAt: row.last_seen_ms === null ? null : new Date(row.last_seen_ms),
      version: row.version,
      capabilities: row.capabilities,
      gaps: row.gaps ?? [],
    }));
  }

  async exists(id: string): Promise<boolean> {
    const rows = await this.orm.em.fork().execute<{ id: string }[]>('select id from nodes where id = ?', [id]);
    return rows.length > 0;
  }
}
