import { Migration } from '@mikro-orm/migrations';

/**
 * Interface restarts and a node's tunnels stopped (docs/interfaces.md, "Restart, stop, start"):
 * `interfaces.restart_serial` grows with each restart asked for (the agent restarts an interface
 * whose serial differs from the one it last applied); `nodes.tunnels_stopped` keeps every
 * interface of the node down until started again.
 */
export class Migration20261126210500_tunnels extends Migration {
  override name = 'Migration20261126210500_tunnels';

  override up(): void | Promise<void> {
    this.addSql(`alter table "interfaces" add column "restart_serial" int not null default 0;`);
    this.addSql(`alter table "nodes" add column "tunnels_stopped" boolean not null default false;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "interfaces" drop column "restart_serial";`);
    this.addSql(`alter table "nodes" drop column "tunnels_stopped";`);
  }
}
