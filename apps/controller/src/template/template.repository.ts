import { Inject, Injectable } from '@nestjs/common';
import { LockMode, MikroORM } from '@mikro-orm/postgresql';
import { Client } from '../clients/client.entity.js';
import { TunnelInterface } from '../interfaces/interface.entity.js';
import { Outbound } from '../outbounds/outbound.entity.js';
import { publicKeyFromPrivate } from '#libs/wireguard/keys.js';
import { bumpRevisions, lockNode } from '../revisions/revisions.js';

export interface OutboundSecrets {
  password: string | null;
  privateKey: string | null;
  presharedKey: string | null;
}

/**
 * What the template needs beyond the services' views: the secrets they never show (read only for
 * the owner's session), client names for rules (clients are not part of the template), and the
 * one write no route offers, an interface's private key.
 */
@Injectable()
export class TemplateRepository {
  constructor(@Inject(MikroORM) private readonly orm: MikroORM) {}

  async interfaceKeys(): Promise<Map<string, string>> {
    const rows = await this.orm.em.fork().find(TunnelInterface, {}, { fields: ['id', 'privateKey'] });
    return new Map(rows.map((row) => [row.id, row.privateKey]));
  }

  async outboundSecrets(): Promise<Map<string, OutboundSecrets>> {
    const rows = await this.orm.em
      .fork()
      .find(Outbound, {}, { fields: ['id', 'password', 'privateKey', 'presharedKey'] });
    return new Map(
      rows.map((row) => [
        row.id,
        { password: row.password ?? null, privateKey: row.privateKey ?? null, presharedKey: row.presharedKey ?? null },
      ]),
    );
  }

  /** Client id → name, for the ids rules name. */
  async clientNames(ids: readonly string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.orm.em.fork().find(Client, { id: { $in: [...ids] } }, { fields: ['id', 'name'] });
    return new Map(rows.map((row) => [row.id, row.name]));
  }

  /** Client name → the ids of the clients so named (names are not unique). */
  async clientIdsByName(names: readonly string[]): Promise<Map<string, string[]>> {
    const result = new Map<string, string[]>();
    if (names.length === 0) return result;
    const rows = await this.orm.em
      .fork()
      .find(Client, { name: { $in: [...names] } }, { fields: ['id', 'name'], orderBy: { id: 'asc' } });
    for (const row of rows) result.set(row.name, [...(result.get(row.name) ?? []), row.id]);
    return result;
  }

  /** Sets an interface's key pair (a template carrying the key); bumps the node's revision when it changed. */
  async setInterfaceKey(interfaceId: string, privateKey: string): Promise<void> {
    await this.orm.em.fork().transactional(async (em) => {
      // The controller's lock order: the interface row, then its node row.
      const row = await em.findOne(
        TunnelInterface,
        { id: interfaceId },
        { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true },
      );
      if (!row || row.privateKey === privateKey) return;
      await lockNode(em, row.node.id, 'nodeId');
      row.privateKey = privateKey;
      row.publicKey = publicKeyFromPrivate(privateKey);
      await em.flush();
      await bumpRevisions(em, [row.node.id]);
    });
  }
}
