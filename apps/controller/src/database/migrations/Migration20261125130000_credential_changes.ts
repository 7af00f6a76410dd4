import { Migration } from '@mikro-orm/migrations';

/**
 * Every change of a node's agent credential (an enrolment, the local agent's fresh credential,
 * the node's deletion) is announced on `warren_credentials` with the node's id, on commit. Every
 * controller checks the link it holds for that node against the stored credential and cuts it
 * when it no longer holds: re-enrolling through one controller ends the old agent's link on
 * another. A trigger, so no writer (restore's COPY included) can change a credential unannounced.
 */
export class Migration20261125130000_credential_changes extends Migration {
  override name = 'Migration20261125130000_credential_changes';

  override up(): void | Promise<void> {
    this.addSql(`create or replace function warren_announce_credential_change() returns trigger language plpgsql as $$
begin
  perform pg_notify('warren_credentials', coalesce(new.node_id, old.node_id)::text);
  return null;
end $$;`);
    this.addSql(`create trigger node_agents_credential_changed
  after update of credential_hash or delete on node_agents
  for each row execute function warren_announce_credential_change();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists node_agents_credential_changed on node_agents;`);
    this.addSql(`drop function if exists warren_announce_credential_change();`);
  }
}
