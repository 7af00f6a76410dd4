import { Injectable } from '@nestjs/common';
import { badRequest, notFound } from '../http/api-error.js';
import { isId } from '../http/id.js';
import { bumpRevisions } from '../revisions/revisions.js';
import { ClientTotals } from './client-totals.js';
import { InterfaceAccountsRepository } from './interface-accounts.repository.js';

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
    private readonly accounts: InterfaceAccountsRepository,
    private readonly totals: ClientTotals,
  ) {}

  async clear(interfaceId: string, confirm: string): Promise<InterfaceCleared> {
    const result = await this.accounts.transaction(async (em) => {
      // Interface row first, node row last (bumpRevisions): the controller's lock order.
      const row = isId(interfaceId) ? await this.accounts.lockInterface(em, interfaceId) : undefined;
      if (!row) throw notFound('interface not found', 'id');
      if (confirm !== row.name)
        throw badRequest(`confirm must be the interface's name ("${row.name}") to remove its accounts`, 'confirm');
      const accountsRemoved = await this.accounts.deleteAccounts(em, interfaceId);
      const clientsDetached = await this.accounts.detachClients(em, interfaceId);
      await bumpRevisions(em, [row.nodeId]);
      return { id: interfaceId, accountsRemoved, clientsDetached };
    });
    this.totals.changed();
    return result;
  }
}
