import pg from 'pg';
import { runMigrations } from 'bullmq';
import { QUEUE_SCHEMA } from '../../libs/contracts/queue-store.js';
import { openDatabase } from '../../apps/controller/src/database/orm.js';
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
});
