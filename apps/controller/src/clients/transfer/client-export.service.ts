import { Inject, Injectable } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import type { OwnerFilter } from '../../auth/operator-scope.js';
import { readNullableNumber, readNumber, readTimestamp } from '../sql.js';
import { exportRows, type ExportRow } from './transfer.repository.js';
import { CSV_COLUMNS, csvCell } from './warren-csv.js';

export interface ExportedAccount {
  interface: string;
  interfaceId: string;
  ip: string;
  publicKey: string;
  privateKey?: string;
  presharedKey?: string;
}

export interface ExportedClient {
  name: string;
  note: string;
  groups: string[];
  telegramId: number | null;
  quotaBytes: number;
  usedBytes: number;
  expiresAt: string | null;
  deviceLimit: number;
  rateBitsPerSec: number;
  resetCycle: string;
  status: string;
  enabled: boolean;
  subId: string;
  createdAt: string;
  devices: { name: string; accounts: ExportedAccount[] }[];
}

export interface ClientExport {
  format: 'warren-clients';
  version: 1;
  exportedAt: string;
  withKeys: boolean;
  clients: ExportedClient[];
}

/**
 * Every client in the caller's scope (a reseller: their own) for another panel or a spreadsheet
 * (docs/import.md): JSON that imports back, or CSV.
 */
@Injectable()
export class ClientExportService {
  constructor(@Inject(MikroORM) private readonly orm: MikroORM) {}

  async json(scope: OwnerFilter, withKeys: boolean, group?: string): Promise<ClientExport> {
    const rows = await exportRows(this.orm.em.fork(), scope, withKeys, group);
    const clients = new Map<string, ExportedClient>();
    const devices = new Map<string, { name: string; accounts: ExportedAccount[] }>();
    for (const row of rows) {
      let client = clients.get(row.client_id);
      if (!client) {
        client = toClient(row);
        clients.set(row.client_id, client);
      }
      if (row.device_name === null) continue;
      const key = `${row.client_id}\u0000${row.device_name}`;
      let device = devices.get(key);
      if (!device) {
        device = { name: row.device_name, accounts: [] };
        devices.set(key, device);
        client.devices.push(device);
      }
      if (row.ip !== null) {
        device.accounts.push({
          interface: row.interface_name!,
          interfaceId: row.interface_id!,
          ip: row.ip,
          publicKey: row.public_key!,
          ...(withKeys ? { privateKey: row.private_key!, presharedKey: row.preshared_key! } : {}),
        });
      }
    }
    return {
      format: 'warren-clients',
      version: 1,
      exportedAt: new Date().toISOString(),
      withKeys,
      clients: [...clients.values()],
    };
  }

  async csv(scope: OwnerFilter, withKeys: boolean, group?: string): Promise<string> {
    const rows = await exportRows(this.orm.em.fork(), scope, withKeys, group);
    const lines = [CSV_COLUMNS.join(',')];
    for (const row of rows) {
      const client = toClient(row);
      lines.push(
        [
          client.name,
          client.note,
          client.groups.join(';'),
          client.telegramId ?? '',
          client.quotaBytes,
          client.usedBytes,
          client.expiresAt ?? '',
          client.deviceLimit,
          client.status,
          row.device_name ?? '',
          row.interface_name ?? '',
          row.ip ?? '',
          row.public_key ?? '',
          withKeys ? (row.private_key ?? '') : '',
          withKeys ? (row.preshared_key ?? '') : '',
        ]
          .map(csvCell)
          .join(','),
      );
    }
    return `${lines.join('\r\n')}\r\n`;
  }
}

function toClient(row: ExportRow): ExportedClient {
  const expiresAt = readTimestamp(row.expires_at);
  return {
    name: row.name,
    note: row.note,
    groups: [...row.groups],
    telegramId: readNullableNumber(row.telegram_id),
    quotaBytes: readNumber(row.quota_bytes),
    usedBytes: readNumber(row.used_bytes),
    expiresAt: expiresAt ? expiresAt.toISOString() : null,
    deviceLimit: readNumber(row.device_limit),
    rateBitsPerSec: readNumber(row.rate_bits_per_sec),
    resetCycle: row.reset_cycle,
    status: row.status,
    enabled: row.status !== 'disabled',
    subId: row.sub_id,
    createdAt: readTimestamp(row.created_at)!.toISOString(),
    devices: [],
  };
}
