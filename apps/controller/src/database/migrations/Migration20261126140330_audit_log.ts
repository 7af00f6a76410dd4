import { Migration } from '@mikro-orm/migrations';

/**
 * The audit log (apps/controller/src/audit, docs/audit.md). The partial index finds the entries a
 * stopped panel left pending, which maintenance settles as `unknown`.
 */
export class Migration20261126140330_audit_log extends Migration {
  override name = 'Migration20261126140330_audit_log';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "audit_entries" ("id" uuid not null, "at" timestamptz not null, "finished_at" timestamptz null, "actor_id" uuid null, "actor_name" varchar(256) null, "actor_role" varchar(16) null, "via" varchar(16) not null, "credential_id" uuid null, "credential_name" varchar(128) null, "action" varchar(64) not null, "method" varchar(8) not null, "route" varchar(128) not null, "target_type" varchar(32) null, "target_id" varchar(128) null, "target_name" varchar(256) null, "changes" jsonb not null, "outcome" varchar(16) not null, "status" int null, "error" varchar(512) null, "address" varchar(64) null, "user_agent" varchar(512) null, "request_id" varchar(128) null, primary key ("id"));`,
    );
    this.addSql(`create index "audit_entries_at_id_index" on "audit_entries" ("at", "id");`);
    this.addSql(`create index "audit_entries_actor_index" on "audit_entries" ("actor_id", "at");`);
    this.addSql(`create index "audit_entries_target_index" on "audit_entries" ("target_type", "target_id", "at");`);
    this.addSql(`create index "audit_entries_action_index" on "audit_entries" ("action", "at");`);
    this.addSql(`create index "audit_entries_pending_index" on "audit_entries" ("at") where "outcome" = 'pending';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "audit_entries" cascade;`);
  }
}
