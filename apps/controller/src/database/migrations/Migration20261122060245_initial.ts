import { Migration } from '@mikro-orm/migrations';

export class Migration20261122060245_initial extends Migration {
  override name = 'Migration20261122060245_initial';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "login_throttles" ("key" varchar(160) not null, "failures" int not null default 0, "locked_until" timestamptz null, "updated_at" timestamptz not null, primary key ("key"));`,
    );

    this.addSql(
      `create table "users" ("id" uuid not null, "username" varchar(64) not null, "password_hash" varchar(255) not null, "role" varchar(16) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`alter table "users" add constraint "users_username_unique" unique ("username");`);

    this.addSql(
      `create table "sessions" ("id" uuid not null, "token_hash" varchar(64) not null, "user_id" uuid not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`alter table "sessions" add constraint "sessions_token_hash_unique" unique ("token_hash");`);
    this.addSql(`create index "sessions_user_id_index" on "sessions" ("user_id");`);
    this.addSql(`create index "sessions_expires_at_index" on "sessions" ("expires_at");`);

    this.addSql(
      `create table "api_tokens" ("id" uuid not null, "name" varchar(64) not null, "hint" varchar(16) not null, "secret_hash" varchar(64) not null, "enabled" boolean not null default true, "user_id" uuid not null, "last_used_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`alter table "api_tokens" add constraint "api_tokens_secret_hash_unique" unique ("secret_hash");`);
    this.addSql(`create index "api_tokens_user_id_index" on "api_tokens" ("user_id");`);

    this.addSql(
      `alter table "sessions" add constraint "sessions_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "api_tokens" add constraint "api_tokens_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "sessions" drop constraint "sessions_user_id_foreign";`);
    this.addSql(`alter table "api_tokens" drop constraint "api_tokens_user_id_foreign";`);

    this.addSql(`drop table if exists "login_throttles" cascade;`);
    this.addSql(`drop table if exists "users" cascade;`);
    this.addSql(`drop table if exists "sessions" cascade;`);
    this.addSql(`drop table if exists "api_tokens" cascade;`);
  }
}
