/**
 * Writes a new migration from the difference between the entities and a database that has every
 * committed migration applied. Usage: DATABASE_URL=postgres://... npm run migration:create
 * The generated file lands in apps/controller/src/database/migrations; add it to index.ts.
 */
import { MikroORM } from '@mikro-orm/postgresql';
import { ormOptions } from './orm.js';

const url = process.env.DATABASE_URL;
if (!url) {
  console.error('DATABASE_URL must point at a scratch database');
  process.exit(2);
}
const options = ormOptions(url);
const orm = await MikroORM.init({
  ...options,
  migrations: { ...options.migrations, path: 'apps/controller/src/database/migrations', emit: 'ts' },
});
await orm.migrator.up();
const result = await orm.migrator.create(undefined, false, false, process.argv[2]);
console.log(result.fileName ? `wrote ${result.fileName}` : 'no changes');
await orm.close(true);
