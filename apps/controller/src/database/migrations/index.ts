import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122060245_initial } from './Migration20261122060245_initial.js';
import { Migration20261122061407_tunnels } from './Migration20261122061407_tunnels.js';
import { Migration20261122065806_list_indexes } from './Migration20261122065806_list_indexes.js';
import { Migration20261123140000_agents } from './Migration20261123140000_agents.js';
import { Migration20261123150000_system_history } from './Migration20261123150000_system_history.js';
import { Migration20261123160000_agent_queue_users } from './Migration20261123160000_agent_queue_users.js';
import { Migration20261125090000_client_summaries } from './Migration20261125090000_client_summaries.js';
import { Migration20261125100000_settings } from './Migration20261125100000_settings.js';
import { Migration20261125100558_outbounds_routing } from './Migration20261125100558_outbounds_routing.js';
import { Migration20261125110000_inventory_counters } from './Migration20261125110000_inventory_counters.js';
import { Migration20261125130000_credential_changes } from './Migration20261125130000_credential_changes.js';
import { Migration20261126090000_fail_closed_default } from './Migration20261126090000_fail_closed_default.js';
import { Migration20261126100000_hop_health } from './Migration20261126100000_hop_health.js';
import { Migration20261126140000_operators } from './Migration20261126140000_operators.js';
import { Migration20261126140100_subscriptions } from './Migration20261126140100_subscriptions.js';
import { Migration20261126140158_two_factor_scoped_tokens } from './Migration20261126140158_two_factor_scoped_tokens.js';
import { Migration20261126140330_audit_log } from './Migration20261126140330_audit_log.js';
import { Migration20261126180000_resellers } from './Migration20261126180000_resellers.js';
import { Migration20261126180100_groups } from './Migration20261126180100_groups.js';
import { Migration20261126180200_client_usage_history } from './Migration20261126180200_client_usage_history.js';
import { Migration20261126180300_sharing } from './Migration20261126180300_sharing.js';
import { Migration20261126210000_notifications } from './Migration20261126210000_notifications.js';
import { Migration20261126210100_telegram } from './Migration20261126210100_telegram.js';
import { Migration20261126210200_client_writes } from './Migration20261126210200_client_writes.js';
import { Migration20261126210400_password_changed } from './Migration20261126210400_password_changed.js';
import { Migration20261126210500_tunnels } from './Migration20261126210500_tunnels.js';
import { Migration20261127010000_host_groups } from './Migration20261127010000_host_groups.js';
import { Migration20261127010100_outbound_subs } from './Migration20261127010100_outbound_subs.js';
import { Migration20261127010200_hop_counters } from './Migration20261127010200_hop_counters.js';
import { Migration20261127040000_balancers } from './Migration20261127040000_balancers.js';
import { Migration20261127090100_million_clients } from './Migration20261127090100_million_clients.js';
import { Migration20261127140000_client_scale } from './Migration20261127140000_client_scale.js';
import { Migration20261127140100_audit_codes } from './Migration20261127140100_audit_codes.js';
import { Migration20261127140200_counter_batches } from './Migration20261127140200_counter_batches.js';
import { Migration20261127150000_peer_journal } from './Migration20261127150000_peer_journal.js';
import { Migration20261127170000_warren_function_names } from './Migration20261127170000_warren_function_names.js';
import { Migration20261127170100_remaining_step } from './Migration20261127170100_remaining_step.js';

/** Committed migrations in the order they run. `npm run migration:create` writes new files; list them here. */
export const MIGRATIONS: MigrationObject[] = [
  { name: 'Migration20261122060245_initial', class: Migration20261122060245_initial },
  { name: 'Migration20261122061407_tunnels', class: Migration20261122061407_tunnels },
  { name: 'Migration20261122065806_list_indexes', class: Migration20261122065806_list_indexes },
  { name: 'Migration20261123140000_agents', class: Migration20261123140000_agents },
  { name: 'Migration20261123150000_system_history', class: Migration20261123150000_system_history },
  { name: 'Migration20261123160000_agent_queue_users', class: Migration20261123160000_agent_queue_users },
  { name: 'Migration20261125090000_client_summaries', class: Migration20261125090000_client_summaries },
  { name: 'Migration20261125100000_settings', class: Migration20261125100000_settings },
  { name: 'Migration20261125100558_outbounds_routing', class: Migration20261125100558_outbounds_routing },
  { name: 'Migration20261125110000_inventory_counters', class: Migration20261125110000_inventory_counters },
  { name: 'Migration20261125130000_credential_changes', class: Migration20261125130000_credential_changes },
  { name: 'Migration20261126090000_fail_closed_default', class: Migration20261126090000_fail_closed_default },
  { name: 'Migration20261126100000_hop_health', class: Migration20261126100000_hop_health },
  { name: 'Migration20261126140000_operators', class: Migration20261126140000_operators },
  { name: 'Migration20261126140100_subscriptions', class: Migration20261126140100_subscriptions },
  {
    name: 'Migration20261126140158_two_factor_scoped_tokens',
    class: Migration20261126140158_two_factor_scoped_tokens,
  },
  { name: 'Migration20261126140330_audit_log', class: Migration20261126140330_audit_log },
  { name: 'Migration20261126180000_resellers', class: Migration20261126180000_resellers },
  { name: 'Migration20261126180100_groups', class: Migration20261126180100_groups },
  {
    name: 'Migration20261126180200_client_usage_history',
    class: Migration20261126180200_client_usage_history,
  },
  { name: 'Migration20261126180300_sharing', class: Migration20261126180300_sharing },
  { name: 'Migration20261126210000_notifications', class: Migration20261126210000_notifications },
  { name: 'Migration20261126210100_telegram', class: Migration20261126210100_telegram },
  { name: 'Migration20261126210200_client_writes', class: Migration20261126210200_client_writes },
  {
    name: 'Migration20261126210400_password_changed',
    class: Migration20261126210400_password_changed,
  },
  { name: 'Migration20261126210500_tunnels', class: Migration20261126210500_tunnels },
  { name: 'Migration20261127010000_host_groups', class: Migration20261127010000_host_groups },
  { name: 'Migration20261127010100_outbound_subs', class: Migration20261127010100_outbound_subs },
  { name: 'Migration20261127010200_hop_counters', class: Migration20261127010200_hop_counters },
  { name: 'Migration20261127040000_balancers', class: Migration20261127040000_balancers },
  { name: 'Migration20261127090100_million_clients', class: Migration20261127090100_million_clients },
  { name: 'Migration20261127140000_client_scale', class: Migration20261127140000_client_scale },
  { name: 'Migration20261127140100_audit_codes', class: Migration20261127140100_audit_codes },
  { name: 'Migration20261127140200_counter_batches', class: Migration20261127140200_counter_batches },
  { name: 'Migration20261127150000_peer_journal', class: Migration20261127150000_peer_journal },
  {
    name: 'Migration20261127170000_warren_function_names',
    class: Migration20261127170000_warren_function_names,
  },
  { name: 'Migration20261127170100_remaining_step', class: Migration20261127170100_remaining_step },
];
