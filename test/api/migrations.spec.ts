import pg from 'pg';
import { runMigrations } from 'bullmq';
import { QUEUE_SCHEMA } from '../../libs/contracts/queue-store.js';
import { MikroORM } from '@mikro-orm/postgresql';
import { openDatabase, ormOptions } from '../../apps/controller/src/database/orm.js';
import { createTestDatabase } from '../support/test-database.js';

describe('migrations', () => {
  test('committed migrations produce exactly the schema the entities describe, ignoring BullMQ tables', async () => {
    const database = await createTestDatabase();
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await runMigrations(client, QUEUE_SCHEMA);
      const orm = await openDatabase(database.url);
      try {
        const pending = await orm.schema.getUpdateSchemaSQL({ wrap: false });
        expect(pending.trim()).toBe('');
        // Running them again on start-up is a no-op.
        await orm.migrator.up();
      } finally {
        await orm.close(true);
      }
    } finally {
      await client.end();
      await database.drop();
    }
  });

  test("every function the migrations make is named warren_…, as a restore drops the panel's by that prefix; down() gives back the old names", async () => {
    const database = await createTestDatabase();
    try {
      const orm = await openDatabase(database.url);
      try {
        // As the restore finds them (backups.repository.ts): public, not an extension's.
        const functions = async () =>
          (
            await orm.em.fork().execute<{ name: string }[]>(
              `select p.proname::text as name from pg_proc p join pg_namespace n on n.oid = p.pronamespace and n.nspname = 'public'
                where not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e') order by 1`,
            )
          ).map((row) => row.name);
        expect((await functions()).filter((name) => !name.startsWith('warren_'))).toEqual([]);
        // Back to before the renaming migration (and the ones after it), one at a time.
        const renamed = 'Migration20261127170000_warren_function_names';
        while ((await orm.migrator.getExecuted()).some((row) => row.name === renamed)) await orm.migrator.down();
        expect((await functions()).filter((name) => !name.startsWith('warren_'))).toEqual([
          'clients_next_reset_fn',
          'clients_status_changed_fn',
        ]);
        await orm.migrator.up();
        expect((await functions()).filter((name) => !name.startsWith('warren_'))).toEqual([]);
      } finally {
        await orm.close(true);
      }
    } finally {
      await database.drop();
    }
  });

  test('fail closed becomes the default for new nodes; existing nodes keep what they routed by (issue 19 item 8)', async () => {
    const database = await createTestDatabase();
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const orm = await MikroORM.init(ormOptions(database.url));
      try {
        await orm.migrator.up({ to: 'Migration20261125130000_credential_changes' });
        // An upgraded panel: one node never touched routing (routed by the old default, fail
        // open), one chose fail closed, one saved fail open.
        const node = async (name: string) =>
          (
            await client.query<{ id: string }>(
              `insert into nodes (id, name, created_at, updated_at) values (gen_random_uuid(), $1, now(), now()) returning id`,
              [name],
            )
          ).rows[0].id;
        const untouched = await node('untouched');
        const closed = await node('closed');
        const open = await node('open');
        for (const [id, value] of [
          [closed, true],
          [open, false],
        ] as const)
          await client.query(`insert into routing_basics (node_id, fail_closed, updated_at) values ($1, $2, now())`, [
            id,
            value,
          ]);
        await orm.migrator.up();
        const added = await node('added after the upgrade');
        await client.query(`insert into routing_basics (node_id, updated_at) values ($1, now())`, [added]);
        const { rows } = await client.query<{ node_id: string; fail_closed: boolean }>(
          'select node_id, fail_closed from routing_basics',
        );
        const failClosed = Object.fromEntries(rows.map((row) => [row.node_id, row.fail_closed]));
        expect(failClosed).toEqual({ [untouched]: false, [closed]: true, [open]: false, [added]: true });
      } finally {
        await orm.close(true);
      }
    } finally {
      await client.end();
      await database.drop();
    }
  });
});
