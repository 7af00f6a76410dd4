import { Migration } from '@mikro-orm/migrations';

/**
 * The SHA-256 of each node's Redis password, as its ACL user holds it. Redis is not where this
 * may live only: a Redis restarted without persistence (or a replica promoted: ACL changes are
 * not replicated) has no users, and the controller puts them back from here.
 */
export class Migration20261123160000_agent_queue_users extends Migration {
  override name = 'Migration20261123160000_agent_queue_users';

  override up(): void | Promise<void> {
    this.addSql(`alter table "node_agents" add column "queue_password_hash" varchar(64) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "node_agents" drop column "queue_password_hash";`);
  }
}
