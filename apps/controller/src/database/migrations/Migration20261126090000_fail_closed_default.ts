import { Migration } from '@mikro-orm/migrations';

/**
 * Fail closed by default (issue 19 item 8): traffic for a hop that is down, disabled or cannot
 * carry its protocol is dropped rather than sent out of the node's uplink. New nodes (and new
 * panels) get `fail_closed = true`. Existing panels keep what they had: rows keep their stored
 * value, and every node without a row (which routed by the old default, fail open) gets a row
 * saying so, so upgrading changes no node's behaviour. A fresh panel has no node yet when this
 * runs (the local node is made at first start, after the migrations), so it inserts nothing;
 * an older backup restored replays this over its rows the same way.
 */
export class Migration20261126090000_fail_closed_default extends Migration {
  override name = 'Migration20261126090000_fail_closed_default';

  override up(): void | Promise<void> {
    this.addSql(`alter table "routing_basics" alter column "fail_closed" set default true;`);
    this.addSql(`insert into "routing_basics" ("node_id", "fail_closed", "updated_at")
      select n."id", false, now() from "nodes" n
       where not exists (select 1 from "routing_basics" b where b."node_id" = n."id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "routing_basics" alter column "fail_closed" set default false;`);
  }
}
