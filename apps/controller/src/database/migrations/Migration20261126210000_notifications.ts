import { Migration } from '@mikro-orm/migrations';

/** The notifications outbox, webhook endpoints and their delivery log (docs/notifications.md). */
export class Migration20261126210000_notifications extends Migration {
  override name = 'Migration20261126210000_notifications';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "notification_events" ("id" uuid not null, "crossing" varchar(200) not null, "kind" varchar(48) not null, "subject_type" varchar(16) not null, "subject_id" varchar(64) not null, "subject_name" varchar(200) not null, "owner_id" uuid null, "telegram_id" varchar(24) null, "details" jsonb not null, "occurred_at" timestamptz not null, "dispatched_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "notification_events" add constraint "notification_events_crossing_unique" unique ("crossing");`,
    );
    this.addSql(`create index "notification_events_occurred_at_index" on "notification_events" ("occurred_at");`);
    this.addSql(
      `create index "notification_events_pending" on "notification_events" ("occurred_at") where "dispatched_at" is null;`,
    );

    this.addSql(
      `create table "webhook_endpoints" ("id" uuid not null, "name" varchar(128) not null, "url" varchar(2048) not null, "secret" varchar(128) not null, "events" text[] not null default '{}', "enabled" boolean not null default true, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );

    this.addSql(
      `create table "webhook_deliveries" ("id" uuid not null, "endpoint_id" uuid not null, "event_id" uuid not null, "kind" varchar(48) not null, "attempt" int not null, "status" int null, "latency_ms" int not null, "error" varchar(500) null, "at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "webhook_deliveries_endpoint_id_at_index" on "webhook_deliveries" ("endpoint_id", "at");`,
    );

    this.addSql(
      `alter table "webhook_deliveries" add constraint "webhook_deliveries_endpoint_id_foreign" foreign key ("endpoint_id") references "webhook_endpoints" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "webhook_deliveries" cascade;`);
    this.addSql(`drop table if exists "webhook_endpoints" cascade;`);
    this.addSql(`drop table if exists "notification_events" cascade;`);
  }
}
