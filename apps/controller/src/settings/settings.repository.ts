import { Inject, Injectable } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { bumpRevisions } from '../revisions/revisions.js';
import { Setting } from './setting.entity.js';

/** The settings rows as stored: key → JSON value. */
@Injectable()
export class SettingsRepository {
  constructor(@Inject(MikroORM) private readonly orm: MikroORM) {}

  async read(): Promise<Map<string, unknown>> {
    const rows = await this.orm.em.fork().find(Setting, {});
    return new Map(rows.map((row) => [row.key, row.value]));
  }

  /**
   * Writes every given key in one transaction: all or none. `bumpHopNodes`: every node that runs
   * a hop gets a new revision in the same transaction (its agent re-checks the hops' targets).
   */
  async write(values: Record<string, unknown>, options: { bumpHopNodes?: boolean } = {}): Promise<void> {
    await this.orm.em.fork().transactional(async (em) => {
      for (const [key, value] of Object.entries(values)) {
        await em.upsert(Setting, { key, value, updatedAt: new Date() });
      }
      if (options.bumpHopNodes) {
        const rows = await em.execute<{ node_id: string }[]>(
          `select distinct node_id from outbounds where kind not in ('direct', 'blocked')`,
        );
        await bumpRevisions(
          em,
          rows.map((row) => row.node_id),
        );
      }
    });
  }
}
