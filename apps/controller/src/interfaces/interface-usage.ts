import type { EntityManager } from '@mikro-orm/postgresql';

export interface InterfaceUsage {
  /** Addresses handed out (accounts on the interface). */
  allocated: number;
  /** Distinct clients attached to the interface. */
  clients: number;
  /** Distinct devices with an account on the interface. */
  devices: number;
}

const NONE: InterfaceUsage = { allocated: 0, clients: 0, devices: 0 };

/** Usage of many interfaces in two grouped queries, whatever their number. */
export async function interfaceUsage(em: EntityManager, interfaceIds: readonly string[]): Promise<Map<string, InterfaceUsage>> {
  const usage = new Map<string, InterfaceUsage>();
  if (interfaceIds.length === 0) return usage;
  const ids = [...interfaceIds];
  const [accounts, clients] = await Promise.all([
    em.execute<{ interface_id: string; allocated: string; devices: string }[]>(
      `select interface_id, count(*) as allocated, count(distinct device_id) as devices
         from accounts where interface_id = any(array[?]::uuid[]) group by interface_id`,
      [ids],
    ),
    em.execute<{ interface_id: string; clients: string }[]>(
      `select interface_id, count(distinct client_id) as clients
         from client_interfaces where interface_id = any(array[?]::uuid[]) group by interface_id`,
      [ids],
    ),
  ]);
  for (const id of ids) usage.set(id, { ...NONE });
  for (const row of accounts) Object.assign(usage.get(row.interface_id)!, { allocated: Number(row.allocated), devices: Number(row.devices) });
  for (const row of clients) usage.get(row.interface_id)!.clients = Number(row.clients);
  return usage;
}
