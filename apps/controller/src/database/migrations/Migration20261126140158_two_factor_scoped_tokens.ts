import { Migration } from '@mikro-orm/migrations';

/**
 * Two-factor sign-in (a TOTP secret per user, the last time step taken, one-time recovery codes
 * kept as SHA-256) and scoped API tokens (read-only, an expiry, route groups): docs/roles.md.
 */
export class Migration20261126140158_two_factor_scoped_tokens extends Migration {
  override name = 'Migration20261126140158_two_factor_scoped_tokens';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "totp_recovery_codes" ("id" uuid not null, "user_id" uuid not null, "code_hash" varchar(64) not null, "used_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "totp_recovery_codes_user_id_index" on "totp_recovery_codes" ("user_id");`);
    this.addSql(
      `alter table "users" add "totp_secret" varchar(64) null, add "totp_enabled" boolean not null default false, add "totp_last_step" bigint null;`,
    );
    this.addSql(
      `alter table "api_tokens" add "read_only" boolean not null default false, add "expires_at" timestamptz null, add "route_groups" jsonb null;`,
    );
    this.addSql(
      `alter table "totp_recovery_codes" add constraint "totp_recovery_codes_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "totp_recovery_codes" cascade;`);
    this.addSql(
      `alter table "api_tokens" drop column "read_only", drop column "expires_at", drop column "route_groups";`,
    );
    this.addSql(
      `alter table "users" drop column "totp_secret", drop column "totp_enabled", drop column "totp_last_step";`,
    );
  }
}
