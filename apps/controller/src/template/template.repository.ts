import { Inject, Injectable } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
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
 * one write no route offers, an interface's private key. Tables read by name (docs/architecture.md).
 */
@Injectable()
export class TemplateRepository {
  constructor(@Inject(MikroORM) private readonly orm: MikroORM) {}

  async interfaceKeys(): Promise<Map<string, string>> {
    const rows = await this.orm.em.fork().execute<{ id: string; private_key: string }[]>('select id, private_key from interfaces');
    return new Map(rows.map((row) => [row.id, row.private_key]));
  }

  async outboundSecrets(): Promise<Map<string, OutboundSecrets>> {
    const rows = await this.orm.em
      .fork()
      .execute<{ id: string; password: string | null; private_key: string | null; preshared_key: string | null }[]>(
        'select id, password, private_key, preshared_key from outbounds',
      );
    return new Map(rows.map((row) => [row.id, { password: row.password, privateKey: row.private_key, presharedKey: row.preshared_key }]));
  }

  /** Client id → name, for the ids rules name. */
  async clientNames(ids: readonly string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.orm.em.fork().execute<{ id: string; name: string }[]>('select id, name from clients where id = any(array[?]::uuid[])', [[...ids]]);
    return new Map(rows.map((row) => [row.id, row.name]));
  }

  /** Client name → the ids of the clients so named (names are not unique). */
  async clientIdsByName(names: readonly string[]): Promise<Map<string, string[]>> {
    const result = new Map<string, string[]>();
    if (names.length === 0) return result;
    const rows = await this.orm.em.fork().execute<{ id: string; name: string }[]>('select id, name from clients where name = any(array[?]::text[]) order by id', [[...names]]);
    for (const row of rows) result.set(row.name, [...(result.get(row.name) ?? []), row.id]);
    return result;
  }

  /** Sets an interface's key pair (a template carrying the key); bumps the node's revision when it changed. */
  async setInterfaceKey(interfaceId: string, nodeId: string, privateKey: string): Promise<void> {
    await this.orm.em.fork().transactional(async (em) => {
      // The controller's lock order: the interface row, then its node row.
      await em.execute('select id from interfaces where id = ? for update', [interfaceId]);
      await lockNode(em, nodeId, 'nodeId');
      const changed = await em.execute(
        'update interfaces set private_key = ?, public_key = ?, updated_at = now() where id = ? and private_key <> ?',
        [privateKey, publicKeyFromPrivate(privateKey), interfaceId, privateKey],
        'run',
      );
      if ((changed as { affectedRows?: number }).affectedRows) await bumpRevisions(em, [nodeId]);
    });
  }
}
