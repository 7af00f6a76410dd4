import { Migration } from '@mikro-orm/migrations';

/** Where devices' endpoints moved (GET /api/sharing, docs/clients.md "Sharing"). */
export class Migration20261126180300_sharing extends Migration {
  override name = 'Migration20261126180300_sharing';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "device_endpoints" ("device_id" uuid not null, "address" varchar(64) not null, "first_seen" timestamptz not null, "last_seen" timestamptz not null, "moves" int not null default 1, primary key ("device_id", "address"));`,
    );
    this.addSql(`create index "device_endpoints_last_seen_index" on "device_endpoints" ("last_seen");`);
    this.addSql(
      `alter table "device_endpoints" add constraint "device_endpoints_device_id_foreign" foreign key ("device_id") references "devices" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "device_endpoints" cascade;`);
  }
}
