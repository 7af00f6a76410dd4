import { Inject, Injectable } from '@nestjs/common';
import type { OwnerFilter } from '../auth/operator-scope.js';
import { sql } from 'kysely';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AmneziaParams } from '#libs/wireguard/amnezia.js';
import type { DialHost } from '../interfaces/dial-targets.js';
import type { InterfaceMode } from '../interfaces/interface.entity.js';
import type { PreparedPool } from '../database/prepared-pool.js';
import { PREPARED_POOL } from '../runtime.js';
import { kysely } from './clients-db.js';
import { readNumber } from './sql.js';

/** One device with one of its accounts (secrets included) and that account's interface. */
export interface ProfileSource {
  clientName: string;
  /** The client's groups: which hosts its configs carry follows them (dialTargets). */
  clientGroups: string[];
  deviceId: string;
  deviceName: string;
  /** The account part is null for a device without accounts. */
  account: {
    interfaceId: string;
    interfaceName: string;
    ip: string;
    privateKey: string;
    presharedKey: string;
    mode: InterfaceMode;
    listenPort: number;
    endpointHost: string;
    mtu: number;
    dns: string[];
    serverPublicKey: string;
    awg: AmneziaParams | null;
  } | null;
}

/** What profiles are rendered from: devices, their accounts with secrets, interfaces and hosts. */
@Injectable()
export class ProfilesRepository {
  constructor(@Inject(PREPARED_POOL) private readonly prepared: PreparedPool) {}

  /** A device's sources; none when there is no such device within the scope. */
  async ofDevice(em: EntityManager, deviceId: string, scope: OwnerFilter): Promise<ProfileSource[]> {
    return this.sources(em, 'd.id', deviceId, scope);
  }

  async ofClient(em: EntityManager, clientId: string, scope: OwnerFilter): Promise<ProfileSource[]> {
    return this.sources(em, 'd.client_id', clientId, scope);
  }

  /** The hosts (dial targets) of these interfaces, by interface id. */
  async hostsOf(em: EntityManager, interfaceIds: readonly string[]): Promise<Map<string, DialHost[]>> {
    const byInterface = new Map<string, DialHost[]>();
    if (interfaceIds.length === 0) return byInterface;
    const rows = await kysely(em)
      .selectFrom('hosts')
      .leftJoin('host_groups as g', 'g.id', 'hosts.group_id')
      .select([
        'hosts.id',
        'hosts.interface_id',
        'hosts.name',
        'hosts.address',
        'hosts.port',
        'hosts.priority',
        'hosts.enabled',
        'hosts.position',
        'g.position as group_position',
        'g.client_groups',
      ])
      .where('hosts.interface_id', 'in', [...interfaceIds])
      .execute();
    for (const row of rows) {
      const list = byInterface.get(row.interface_id) ?? [];
      list.push({
        id: row.id,
        name: row.name,
        address: row.address,
        port: readNumber(row.port),
        priority: readNumber(row.priority),
        enabled: row.enabled,
        position: readNumber(row.position),
        groupPosition: row.group_position === null ? null : readNumber(row.group_position),
        clientGroups: row.client_groups ?? [],
      });
      byInterface.set(row.interface_id, list);
    }
    return byInterface;
  }

  /** Everything a profile needs in one read, devices without accounts included. */
  private async sources(
    em: EntityManager,
    column: 'd.id' | 'd.client_id',
    id: string,
    scope: OwnerFilter,
  ): Promise<ProfileSource[]> {
    const rows = await this.sourcesQuery(em, column, id)
      .$if(scope.ownerId !== null, (qb) => qb.where('c.owner_id', '=', scope.ownerId!))
      .execute();
    return rows.map(toSource);
  }

  /**
   * A client's sources and its interfaces' hosts in one round trip, as a prepared statement (the
   * public subscription page's path: docs/subscriptions.md). The same query as `sources`, compiled
   * by Kysely, with each row's interface hosts as JSON.
   */
  async ofClientWithHosts(
    em: EntityManager,
    clientId: string,
  ): Promise<{ sources: ProfileSource[]; hosts: Map<string, DialHost[]> }> {
    const compiled = this.sourcesQuery(em, 'd.client_id', clientId)
      .select(
        sql<HostRow[] | null>`(select json_agg(json_build_object('id', h.id, 'name', h.name, 'address', h.address,
          'port', h.port, 'priority', h.priority, 'enabled', h.enabled, 'position', h.position,
          'groupPosition', g.position, 'clientGroups', g.client_groups))
          from hosts h left join host_groups g on g.id = h.group_id where h.interface_id = a.interface_id)`.as('hosts'),
      )
      .compile();
    type Row = Parameters<typeof toSource>[0] & { hosts: HostRow[] | null };
    const rows = await this.prepared.query<Row>('profiles_of_client_with_hosts', compiled.sql, [
      ...compiled.parameters,
    ]);
    const hosts = new Map<string, DialHost[]>();
    for (const row of rows) {
      if (row.interface_id && !hosts.has(row.interface_id)) hosts.set(row.interface_id, row.hosts ?? []);
    }
    return { sources: rows.map(toSource), hosts };
  }

  private sourcesQuery(em: EntityManager, column: 'd.id' | 'd.client_id', id: string) {
    return kysely(em)
      .selectFrom('devices as d')
      .innerJoin('clients as c', 'c.id', 'd.client_id')
      .leftJoin('accounts as a', 'a.device_id', 'd.id')
      .leftJoin('interfaces as i', 'i.id', 'a.interface_id')
      .select([
        'c.name as client_name',
        'c.groups as client_groups',
        'd.id as device_id',
        'd.name as device_name',
        'a.interface_id',
        'a.ip',
        'a.private_key',
        'a.preshared_key',
        'i.name as interface_name',
        'i.mode',
        'i.listen_port',
        'i.endpoint_host',
        'i.mtu',
        'i.dns',
        'i.public_key as server_public_key',
        'i.awg',
      ])
      .where(column, '=', id)
      .orderBy('d.created_at')
      .orderBy('d.id')
      .orderBy('i.name')
      .orderBy('i.id');
  }
}

type HostRow = DialHost;

type SourceRow = Awaited<ReturnType<ReturnType<ProfilesRepository['sourcesQuery']>['execute']>>[number];

function toSource(row: SourceRow): ProfileSource {
  return {
    clientName: row.client_name,
    clientGroups: row.client_groups ?? [],
    deviceId: row.device_id,
    deviceName: row.device_name,
    account: row.interface_id
      ? {
          interfaceId: row.interface_id,
          interfaceName: row.interface_name!,
          ip: row.ip!,
          privateKey: row.private_key!,
          presharedKey: row.preshared_key!,
          mode: row.mode!,
          listenPort: readNumber(row.listen_port),
          endpointHost: row.endpoint_host!,
          mtu: readNumber(row.mtu),
          dns: row.dns ?? [],
          serverPublicKey: row.server_public_key!,
          awg: (row.awg as AmneziaParams | null) ?? null,
        }
      : null,
  };
}
