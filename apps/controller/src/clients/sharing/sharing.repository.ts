import { Injectable } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  DEFAULT_SETTINGS,
  SETTING_BOUNDS,
  SHARING_ACTIONS,
  type SharingAction,
} from '../../settings/panel-settings.js';
import { readNumber, readTimestamp } from '../sql.js';

/** The newest addresses kept per device: enough evidence, and a device's rows stay bounded. */
export const ADDRESSES_KEPT_PER_DEVICE = 32;
/** Rows older than this are pruned (the longest window the setting allows). */
const KEPT_FOR = '1 day';

/** One address a device's endpoint moved to, with when and how often. */
export interface EndpointMove {
  address: string;
  firstSeen: Date;
  lastSeen: Date;
  moves: number;
}

/** A device whose endpoint moved to at least two addresses within the window. */
export interface DeviceMoves {
  clientId: string;
  clientName: string;
  clientStatus: string;
  deviceId: string;
  deviceName: string;
  addresses: EndpointMove[];
}

/**
 * The statement part that records a counter batch's endpoint moves (an endpoint whose address
 * differs from the account's last one, or its first), as a CTE `moves` over the batch's matched
 * peers `hit` (columns device_id, node_id, address, last_endpoint: the account's before this
 * batch) and the time `now` (an SQL expression). A move counts once per node that saw it, as it
 * did when each node's batch had a statement of its own (counter-commits.ts records several). In the batch's statement, whose every part sees the rows as
 * they were before it, so the comparison is with the last endpoint before this batch.
 */
export function endpointMoves(now: string): string {
  return `moves as (
         insert into device_endpoints as e (device_id, address, first_seen, last_seen, moves)
         select hit.device_id, hit.address, ${now}, ${now}, count(distinct hit.node_id)
           from hit
          where hit.address is not null
            and (hit.last_endpoint is null
                 or regexp_replace(regexp_replace(hit.last_endpoint, ':\\d+$', ''), '^\\[(.*)\\]$', '\\1') <> hit.address)
          group by hit.device_id, hit.address
         on conflict (device_id, address) do update set last_seen = excluded.last_seen, moves = e.moves + excluded.moves
         returning e.device_id
       )`;
}

/**
 * Where devices' endpoints moved: an address per device and place (the endpoint without its port),
 * recorded from agents' counter batches when an account's endpoint changes address. Raw SQL for
 * the same reason as the usage batch: one statement per batch whatever its size.
 */
@Injectable()
export class SharingRepository {
  /**
   * Keeps the endpoint rows of devices that just moved bounded: old rows, and all but the newest
   * per device, go. The moves themselves are recorded by the counter batch's statement
   * (usage.repository.ts, with endpointMoves above), before its counters move the accounts' last
   * endpoints.
   */
  async pruneMoved(em: EntityManager, devices: readonly string[], now: Date): Promise<void> {
    if (devices.length === 0) return;
    await em.execute(
      `delete from device_endpoints e
        where e.device_id = any(array[?]::uuid[])
          and (e.last_seen < ?::timestamptz - interval '${KEPT_FOR}'
               or (e.device_id, e.address) not in (
                 select k.device_id, k.address from device_endpoints k where k.device_id = e.device_id
                  order by k.last_seen desc limit ${ADDRESSES_KEPT_PER_DEVICE}))`,
      [[...devices], now],
    );
  }

  /**
   * Devices with at least two addresses since `since` (all, or those of `deviceIds`), with their
   * addresses in that window, newest first.
   */
  async movesSince(em: EntityManager, since: Date, deviceIds?: readonly string[]): Promise<DeviceMoves[]> {
    const rows = await em.execute<Record<string, unknown>[]>(
      `select c.id as client_id, c.name as client_name, c.status as client_status, d.id as device_id,
              d.name as device_name, e.address, e.first_seen, e.last_seen, e.moves
         from device_endpoints e
         join devices d on d.id = e.device_id
         join clients c on c.id = d.client_id
        where e.last_seen >= ?
          ${deviceIds ? 'and e.device_id = any(array[?]::uuid[])' : ''}
          and e.device_id in (select device_id from device_endpoints where last_seen >= ?
                               group by device_id having count(*) >= 2)
        order by c.name, c.id, d.name, d.id, e.last_seen desc`,
      deviceIds ? [since, [...deviceIds], since] : [since, since],
    );
    const devices = new Map<string, DeviceMoves>();
    for (const row of rows) {
      const id = row.device_id as string;
      let device = devices.get(id);
      if (!device)
        devices.set(
          id,
          (device = {
            clientId: row.client_id as string,
            clientName: row.client_name as string,
            clientStatus: row.client_status as string,
            deviceId: id,
            deviceName: row.device_name as string,
            addresses: [],
          }),
        );
      device.addresses.push({
        address: row.address as string,
        firstSeen: readTimestamp(row.first_seen)!,
        lastSeen: readTimestamp(row.last_seen)!,
        moves: readNumber(row.moves),
      });
    }
    return [...devices.values()];
  }

  /** Disables these clients (those not disabled already); returns the ids it changed. */
  async disableClients(em: EntityManager, clientIds: readonly string[], now: Date): Promise<string[]> {
    if (clientIds.length === 0) return [];
    const rows = await em.execute<{ id: string; status: string }[]>(
      `update clients c set status = 'disabled', updated_at = ?
         from (select id, status from clients where id = any(array[?]::uuid[]) and status <> 'disabled' for update) old
        where c.id = old.id
       returning c.id, old.status`,
      [now, [...clientIds]],
    );
    return rows.map((row) => row.id);
  }
}

/** An endpoint's address without its port: `1.2.3.4:5` → `1.2.3.4`, `[::1]:5` → `::1`. */
export function addressOf(endpoint: string): string {
  const bare = endpoint.replace(/:\d+$/, '');
  return bare.startsWith('[') && bare.endsWith(']') ? bare.slice(1, -1) : bare;
}

/** The sharing settings as stored (panel-settings.ts); a missing or bad value reads as its default. */
export async function readSharingSettings(em: EntityManager): Promise<SharingSettings> {
  const rows = await em.execute<{ key: string; value: unknown }[]>(
    `select key, value from settings where key in ('sharingWindowMinutes', 'sharingMaxAddresses', 'sharingAction')`,
  );
  const stored = new Map(rows.map((row) => [row.key, row.value]));
  const within = (key: 'sharingWindowMinutes' | 'sharingMaxAddresses') => {
    const value = stored.get(key);
    const { min, max } = SETTING_BOUNDS[key];
    return Number.isInteger(value) && (value as number) >= min && (value as number) <= max
      ? (value as number)
      : DEFAULT_SETTINGS[key];
  };
  const action = stored.get('sharingAction');
  return {
    windowMinutes: within('sharingWindowMinutes'),
    maxAddresses: within('sharingMaxAddresses'),
    action: SHARING_ACTIONS.includes(action as SharingAction)
      ? (action as SharingAction)
      : DEFAULT_SETTINGS.sharingAction,
  };
}

export interface SharingSettings {
  windowMinutes: number;
  maxAddresses: number;
  action: SharingAction;
}
