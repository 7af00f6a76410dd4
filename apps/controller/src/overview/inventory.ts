import { CLIENT_STATUSES } from '../clients/client.entity.js';
import type { CounterValues } from './inventory.repository.js';

export interface InventoryCounts {
  clients: { total: number; active: number; disabled: number; expired: number; exhausted: number };
  devices: { total: number; online: number; onlineWindowSeconds: number };
  interfaces: number;
  usage: { upBytes: number; downBytes: number; usedBytes: number };
  quota: { totalBytes: number; limitedClients: number; unlimitedClients: number };
}

/**
 * The inventory from the stored counters (their names are the triggers' in
 * Migration20261125110000_inventory_counters). A counter never moved reads 0.
 */
export function inventoryFrom(counters: CounterValues, onlineWindowMs: number): InventoryCounts {
  const value = (name: string) => counters.get(name) ?? 0;
  const byStatus = Object.fromEntries(CLIENT_STATUSES.map((status) => [status, value(`clients.${status}`)])) as Record<
    (typeof CLIENT_STATUSES)[number],
    number
  >;
  const total = CLIENT_STATUSES.reduce((sum, status) => sum + byStatus[status], 0);
  const unlimited = value('quota.unlimited');
  return {
    clients: {
      total,
      active: byStatus.active,
      disabled: byStatus.disabled,
      expired: byStatus.expired,
      exhausted: byStatus.exhausted,
    },
    devices: { total: value('devices'), online: value('online'), onlineWindowSeconds: onlineWindowMs / 1000 },
    interfaces: value('interfaces'),
    usage: { upBytes: value('usage.up'), downBytes: value('usage.down'), usedBytes: value('usage.used') },
    quota: { totalBytes: value('quota.bytes'), limitedClients: total - unlimited, unlimitedClients: unlimited },
  };
}
