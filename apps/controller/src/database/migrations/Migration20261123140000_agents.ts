import { Migration } from '@mikro-orm/migrations';

/**
 * Agents: enrolment and credentials per node, the link's last known state, and the counter
 * sequence the controller has recorded (so each batch of counters is applied once). Kept out of
 * `nodes` on purpose: the agent link writes here every few seconds, and `nodes` rows are what
 * every peer-changing transaction locks (bumpRevisions).
 *
 * `nodes.delivered_revision` is the outbox mark: the highest revision an `apply` job was enqueued
 * for. A node with desired > delivered has a change no job carries yet (a crash between commit and
 * enqueue), and the delivery sweep picks it up.
 */
export class Migration20261123140000_agents extends Migration {
  override name = 'Migration20261123140000_agents';

  override up(): void | Promise<void> {
    this.addSql(`alter table "nodes" add column "delivered_revision" bigint not null default '0';`);
    this.addSql(`create table "node_agents" (
      "node_id" uuid not null,
      "enrolment_hash" varchar(64) null,
      "enrolment_expires_at" timestamptz null,
      "credential_hash" varchar(64) null,
      "enrolled_at" timestamptz null,
      "version" varchar(64) null,
      "capabilities" jsonb null,
      "gaps" jsonb not null default '[]',
      "connected" boolean not null default false,
      "connected_at" timestamptz null,
      "last_seen_at" timestamptz null,
      "counters_seq" bigint not null default '0',
      "last_apply" jsonb null,
      primary key ("node_id"));`);
    this.addSql(
      `alter table "node_agents" add constraint "node_agents_node_id_foreign" foreign key ("node_id") references "nodes" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(`create unique index "node_agents_credential_hash_unique" on "node_agents" ("credential_hash");`);
    this.addSql(`create unique index "node_agents_enrolment_hash_unique" on "node_agents" ("enrolment_hash");`);
    // Counters name a peer by node, interface name and public key.
    this.addSql(`create index "accounts_node_id_public_key_index" on "accounts" ("node_id", "public_key");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "accounts_node_id_public_key_index";`);
    this.addSql(`drop table if exists "node_agents" cascade;`);
    this.addSql(`alter table "nodes" drop column "delivered_revision";`);
  }
}
