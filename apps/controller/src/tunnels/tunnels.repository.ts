import { Inject, Injectable } from '@nestjs/common';
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';

/** An interface as a restart needs it, read under its row lock. */
export interface RestartTarget {
  id: string;
  nodeId: string;
  enabled: boolean;
}

/** A node as stop, start and restart need it, read under its row lock. */
export interface TunnelNode {
  id: string;
  tunnelsStopped: boolean;
  /** Its enabled interfaces: what runs on the host. */
  enabledInterfaces: number;
}

/**
 * Rows of restarts and of a node's stopped tunnels (`interfaces.restart_serial`,
 * `nodes.tunnels_stopped`). Read by table name: interfaces/ and nodes/ own those tables, and this
 * domain sits beside them, touching only these two columns. Writes take the service's
 * transaction; the lock order is the controller's: interface rows before node rows.
 */
@Injectable()
export class TunnelsRepository {
  constructor(@Inject(MikroORM) private readonly orm: MikroORM) {}

  transaction<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    return this.orm.em.fork().transactional(work);
  }

  async localNodeId(em: EntityManager): Promise<string | null> {
    const [row] = await em.execute<{ id: string }[]>('select id from nodes where is_local limit 1');
    return row?.id ?? null;
  }

  async lockInterface(em: EntityManager, id: string): Promise<RestartTarget | null> {
    const [row] = await em.execute<{ id: string; node_id: string; enabled: boolean }[]>(
      'select id, node_id, enabled from interfaces where id = ? for update',
      [id],
    );
    return row ? { id: row.id, nodeId: row.node_id, enabled: row.enabled } : null;
  }

  async lockNode(em: EntityManager, id: string): Promise<TunnelNode | null> {
    const [row] = await em.execute<{ id: string; tunnels_stopped: boolean }[]>(
      'select id, tunnels_stopped from nodes where id = ? for no key update',
      [id],
    );
    if (!row) return null;
    const [count] = await em.execute<{ n: string }[]>(
      'select count(*) as n from interfaces where node_id = ? and enabled',
      [id],
    );
    return { id: row.id, tunnelsStopped: row.tunnels_stopped, enabledInterfaces: Number(count.n) };
  }

  /** One more restart of these interfaces (all the node's enabled ones when none are named). */
  async addRestart(em: EntityManager, nodeId: string, interfaceId?: string): Promise<number> {
    const rows = await em.execute<{ id: string }[]>(
      `update interfaces set restart_serial = restart_serial + 1
        where node_id = ? and enabled ${interfaceId ? 'and id = ?' : ''}
        returning id`,
      interfaceId ? [nodeId, interfaceId] : [nodeId],
    );
    return rows.length;
  }

  async setStopped(em: EntityManager, nodeId: string, stopped: boolean): Promise<void> {
    await em.execute('update nodes set tunnels_stopped = ? where id = ?', [stopped, nodeId]);
  }
}
