import { Inject, Injectable } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';

export interface OwnerFacts {
  username: string;
  passwordChangedAt: Date | null;
  totpEnabled: boolean;
}

/**
 * What the server-wide routes read across domains (users, node agents, nodes): a few small
 * read-only queries, raw SQL so this folder pulls no other domain's entities in.
 */
@Injectable()
export class ServerRepository {
  constructor(@Inject(MikroORM) private readonly orm: MikroORM) {}

  async owners(): Promise<OwnerFacts[]> {
    const rows = await this.orm.em
      .fork()
      .execute<{ username: string; password_changed_at: Date | null; totp_enabled: boolean }[]>(
        `select username, password_changed_at, totp_enabled from users
        where role = 'owner' and enabled order by created_at`,
      );
    return rows.map((row) => ({
      username: row.username,
      passwordChangedAt: row.password_changed_at,
      totpEnabled: row.totp_enabled,
    }));
  }

  /** Every agent that has reported a version on its link, with its node's name. */
  async agentVersions(): Promise<{ nodeName: string; version: string }[]> {
    const rows = await this.orm.em.fork().execute<{ name: string; version: string }[]>(
      `select n.name, a.version from node_agents a join nodes n on n.id = a.node_id
        where a.version is not null order by n.name`,
    );
    return rows.map((row) => ({ nodeName: row.name, version: row.version }));
  }

  /** Every node's id and name, by name. */
  nodes(): Promise<{ id: string; name: string }[]> {
    return this.orm.em.fork().execute<{ id: string; name: string }[]>(`select id, name from nodes order by name`);
  }
}
