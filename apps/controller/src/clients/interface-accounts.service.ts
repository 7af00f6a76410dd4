import { Inject, Injectable } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { badRequest, notFound } from '../http/api-error.js';
import { isId } from '../http/id.js';
import { bumpRevisions } from '../revisions/revisions.js';
import { ClientTotals } from './client-totals.js';

/** What clearing an interface removed. */
export interface InterfaceCleared {
  id: string;
  accountsRemoved: number;
  clientsDetached: number;
}

/**
 * W-UI's `POST /api/interfaces/{id}/clear`: every account on the interface goes (each device
 * loses its peer there) and its clients are detached from it, in one transaction that bumps the
 * node's revision; the interface itself stays. The request must name the interface in `confirm`:
 * a mistyped id must not empty another one (docs/interfaces.md, "Controls").
 */
@Injectable()
export class InterfaceAccountsService {
  constructor(
    @Inject(MikroORM) private readonly orm: MikroORM,
    private readonly totals: ClientTotals,
  ) {}

  async clear(interfaceId: string, confirm: string): Promise<InterfaceCleared> {
    const result = await this.orm.em.fork().transactional(async (em) => {
      // Interface row first, node row last (bumpRevisions): the controller's lock order.
      const [row] = isId(interfaceId)
        ? await em.execute<{ name: string; node_id: string }[]>(
            'select name, node_id from interfaces where id = ? for update',
            [interfaceId],
          )
        : [];
      if (!row) throw notFound('interface not found', 'id');
      if (confirm !== row.name)
        throw badRequest(`confirm must be the interface's name ("${row.name}") to remove its accounts`, 'confirm');
      const accounts = await em.execute<{ id: string }[]>('delete from accounts where interface_id = ? returning id', [
        interfaceId,
      ]);
      const clients = await em.execute<{ client_id: string }[]>(
        'delete from client_interfaces where interface_id = ? returning client_id',
        [interfaceId],
      );
      await bumpRevisions(em, [row.node_id]);
      return { id: interfaceId, accountsRemoved: accounts.length, clientsDetached: clients.length };
    });
    this.totals.changed();
    return result;
  }
}
