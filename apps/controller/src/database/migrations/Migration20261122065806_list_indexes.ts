import { Migration } from '@mikro-orm/migrations';

export class Migration20261122065806_list_indexes extends Migration {
  override name = 'Migration20261122065806_list_indexes';

  override up(): void | Promise<void> {
    this.addSql(`drop index "clients_created_at_index";`);
    this.addSql(`drop index "clients_name_index";`);
    this.addSql(`create index "clients_created_at_id_index" on "clients" ("created_at", "id");`);
    this.addSql(`create index "clients_name_id_index" on "clients" ("name", "id");`);
    this.addSql(`create index "clients_used_bytes_id_index" on "clients" ("used_bytes", "id");`);

    this.addSql(`create index "client_interfaces_interface_id_index" on "client_interfaces" ("interface_id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "client_interfaces_interface_id_index";`);

    this.addSql(`drop index "clients_created_at_id_index";`);
    this.addSql(`drop index "clients_name_id_index";`);
    this.addSql(`drop index "clients_used_bytes_id_index";`);
    this.addSql(`create index "clients_created_at_index" on "clients" ("created_at");`);
    this.addSql(`create index "clients_name_index" on "clients" ("name");`);
  }
}
