import { Migration } from '@mikro-orm/migrations';

/**
 * A hop's health from its checks (issue 19 item 9): `health` up/down with the time it last
 * changed, and every change kept in `outbound_transitions` (for notifications to send).
 */
export class Migration20261126100000_hop_health extends Migration {
  override name = 'Migration20261126100000_hop_health';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "outbounds" add column "health" varchar(8) null, add column "health_changed_at" timestamptz null;`,
    );
    this.addSql(
      `create table "outbound_transitions" ("id" uuid not null, "outbound_id" uuid not null, "node_id" uuid not null, "tag" varchar(64) not null, "from_state" varchar(8) null, "to_state" varchar(8) not null, "error" varchar(500) null, "at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "outbound_transitions_outbound_id_index" on "outbound_transitions" ("outbound_id");`);
    this.addSql(`create index "outbound_transitions_at_index" on "outbound_transitions" ("at");`);
    this.addSql(
      `alter table "outbound_transitions" add constraint "outbound_transitions_outbound_id_foreign" foreign key ("outbound_id") references "outbounds" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "outbound_transitions" cascade;`);
    this.addSql(`alter table "outbounds" drop column "health", drop column "health_changed_at";`);
  }
}
