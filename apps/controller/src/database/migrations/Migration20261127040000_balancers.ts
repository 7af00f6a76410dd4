import { Migration } from '@mikro-orm/migrations';

/**
 * Balancers (docs/outbounds.md, "Balancers"): a node's routing target made of several of its
 * hops (`hops`, outbound ids in order) with a strategy, and an override pinning one of them. A
 * routing rule targets either an outbound or a balancer (`routing_rules.balancer_id`; the foreign
 * key refuses deleting a balancer a rule uses, as for outbounds).
 */
export class Migration20261127040000_balancers extends Migration {
  override name = 'Migration20261127040000_balancers';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "balancers" ("id" uuid not null, "node_id" uuid not null, "tag" varchar(64) not null, "strategy" varchar(16) not null, "hops" text[] not null default '{}', "override_id" uuid null, "note" varchar(500) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "balancers_node_id_index" on "balancers" ("node_id");`);
    this.addSql(`alter table "balancers" add constraint "balancers_node_id_tag_unique" unique ("node_id", "tag");`);
    this.addSql(
      `alter table "balancers" add constraint "balancers_node_id_foreign" foreign key ("node_id") references "nodes" ("id") on delete cascade;`,
    );
    this.addSql(`alter table "routing_rules" alter column "outbound_id" drop not null;`);
    this.addSql(`alter table "routing_rules" add column "balancer_id" uuid null;`);
    this.addSql(`create index "routing_rules_balancer_id_index" on "routing_rules" ("balancer_id");`);
    this.addSql(
      `alter table "routing_rules" add constraint "routing_rules_balancer_id_foreign" foreign key ("balancer_id") references "balancers" ("id") on delete no action;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`delete from "routing_rules" where "outbound_id" is null;`);
    this.addSql(`alter table "routing_rules" drop constraint "routing_rules_balancer_id_foreign";`);
    this.addSql(`alter table "routing_rules" drop column "balancer_id";`);
    this.addSql(`alter table "routing_rules" alter column "outbound_id" set not null;`);
    this.addSql(`drop table if exists "balancers" cascade;`);
  }
}
