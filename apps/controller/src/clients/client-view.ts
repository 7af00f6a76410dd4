import type { ClientStatus, ResetCycle } from './client.entity.js';
import { isOnline } from '../common/online.js';
import { isoTimestamp } from './list-row-types.js';
import { readNullableNumber, readNumber, readRequiredTimestamp, readTimestamp } from './sql.js';

/**
 * A client as the API shows it, its timestamps of type `Time`. Derived fields (group,
 * remainingBytes, deviceCount) are computed here.
 */
export interface ClientFields<Time> {
  id: string;
  name: string;
  note: string;
  groups: string[];
  /** The first group, or null: what a one-group UI shows. */
  group: string | null;
  telegramId: number | null;
  quotaBytes: number;
  usedBytes: number;
  upBytes: number;
  downBytes: number;
  /** null when the quota is unlimited (0). */
  remainingBytes: number | null;
  expiresAt: Time | null;
  deviceLimit: number;
  deviceCount: number;
  rateBitsPerSec: number;
  resetCycle: ResetCycle;
  lastResetAt: Time | null;
  startOnFirstUse: boolean;
  durationSeconds: number;
  activatedAt: Time | null;
  /** The latest handshake of any of its devices on any node (from the agents' counters). */
  lastHandshake: Time | null;
  /** Derived: a handshake within ONLINE_WINDOW_MS. */
  onlineNow: boolean;
  /**
   * Bytes per second the client received (down) and sent (up) between the agents' last two
   * readings, summed over its devices on every node; 0 when nothing moved in the latest report.
   */
  downRate: number;
  upRate: number;
  status: ClientStatus;
  subId: string;
  interfaceIds: string[];
  createdAt: Time;
  updatedAt: Time;
}

/** A client with Date timestamps, for the services' rules. */
export type ClientView = ClientFields<Date>;

/**
 * A client as a list page shows it: timestamps already as their JSON text (isoTimestamp), from
 * rows whose timestamptz columns arrive as text (LIST_ROW_TYPES). Serializes byte for byte
 * as the ClientView of the same row.
 */
export type ClientListItem = ClientFields<string>;

const RATE_HANDSHAKE_WINDOW = '5 minutes';

/**
 * A client's current rate: the sum of its accounts' rates that still hold (an account's rate
 * lapses when the next report leaves it out: it moved nothing). A correlated subquery over the
 * client's devices (index on client_id) and their accounts (index on device_id), run only for
 * the rows a page shows (client-list.repository.ts), and only for a client with a handshake in
 * the last RATE_HANDSHAKE_WINDOW: WireGuard moves no data without a session younger than three
 * minutes, and a report carrying bytes carries that handshake, so an offline client (most rows
 * of a large list) costs no subquery.
 */
function rateOf(direction: 'up' | 'down'): string {
  return `(case when c.last_handshake > now() - interval '${RATE_HANDSHAKE_WINDOW}' then
    (select coalesce(sum(a.${direction}_rate), 0) from devices d join accounts a on a.device_id = d.id
      where d.client_id = c.id and a.rate_until > now()) else 0 end)`;
}

/**
 * The select list of a client view over `clients c`. The device count, latest handshake and
 * interface ids are kept on the client row by the database (client.entity.ts), so a list page is
 * one index walk over clients with no per-row subquery.
 */
export const CLIENT_VIEW_COLUMNS = `
  c.id, c.name, c.note, c.groups, c.telegram_id, c.quota_bytes, c.used_bytes, c.up_bytes, c.down_bytes,
  c.expires_at, c.device_limit, c.rate_bits_per_sec, c.reset_cycle, c.last_reset_at, c.start_on_first_use,
  c.duration_seconds, c.activated_at, c.status, c.sub_id, c.created_at, c.updated_at,
  c.device_count, c.last_handshake, c.interface_ids, ${rateOf('up')} as up_rate, ${rateOf('down')} as down_rate`;

export type ClientRow = Record<string, unknown>;

/** The names of CLIENT_VIEW_COLUMNS in their order: where each sits in an array row. */
export const CLIENT_VIEW_COLUMN_NAMES = [
  'id',
  'name',
  'note',
  'groups',
  'telegram_id',
  'quota_bytes',
  'used_bytes',
  'up_bytes',
  'down_bytes',
  'expires_at',
  'device_limit',
  'rate_bits_per_sec',
  'reset_cycle',
  'last_reset_at',
  'start_on_first_use',
  'duration_seconds',
  'activated_at',
  'status',
  'sub_id',
  'created_at',
  'updated_at',
  'device_count',
  'last_handshake',
  'interface_ids',
  'up_rate',
  'down_rate',
] as const;
const COL = Object.fromEntries(CLIENT_VIEW_COLUMN_NAMES.map((name, index) => [name, index])) as Record<
  (typeof CLIENT_VIEW_COLUMN_NAMES)[number],
  number
>;

/** The one mapper from a snake_case row (selected with CLIENT_VIEW_COLUMNS) to the view. */
export function toClientView(row: ClientRow): ClientView {
  const lastHandshake = readTimestamp(row.last_handshake);
  return mapClient(
    CLIENT_VIEW_COLUMN_NAMES.map((name) => row[name]),
    readTimestamp,
    readRequiredTimestamp,
    isOnline(lastHandshake),
  );
}

/**
 * The same mapping for a list row in node-postgres's array row mode (CLIENT_VIEW_COLUMN_NAMES
 * order, more columns may follow), its timestamps as PostgreSQL's text.
 */
export function toClientListItem(values: unknown[]): ClientListItem {
  const lastHandshake = textTimestamp(values[COL.last_handshake]);
  return mapClient(
    values,
    textTimestamp,
    requiredTextTimestamp,
    lastHandshake !== null && isOnline(new Date(lastHandshake)),
  );
}

function textTimestamp(value: unknown): string | null {
  return value === null || value === undefined ? null : isoTimestamp(value as string);
}

function requiredTextTimestamp(value: unknown): string {
  const text = textTimestamp(value);
  if (text === null) throw new Error('expected a timestamp, got null');
  return text;
}

function mapClient<Time>(
  v: unknown[],
  time: (value: unknown) => Time | null,
  requiredTime: (value: unknown) => Time,
  onlineNow: boolean,
): ClientFields<Time> {
  const groups = (v[COL.groups] as string[] | null) ?? [];
  const quotaBytes = readNumber(v[COL.quota_bytes]);
  const usedBytes = readNumber(v[COL.used_bytes]);
  return {
    id: v[COL.id] as string,
    name: v[COL.name] as string,
    note: v[COL.note] as string,
    groups,
    group: groups[0] ?? null,
    telegramId: readNullableNumber(v[COL.telegram_id]),
    quotaBytes,
    usedBytes,
    upBytes: readNumber(v[COL.up_bytes]),
    downBytes: readNumber(v[COL.down_bytes]),
    remainingBytes: quotaBytes > 0 ? Math.max(0, quotaBytes - usedBytes) : null,
    expiresAt: time(v[COL.expires_at]),
    deviceLimit: readNumber(v[COL.device_limit]),
    deviceCount: readNumber(v[COL.device_count]),
    rateBitsPerSec: readNumber(v[COL.rate_bits_per_sec]),
    resetCycle: v[COL.reset_cycle] as ResetCycle,
    lastResetAt: time(v[COL.last_reset_at]),
    startOnFirstUse: v[COL.start_on_first_use] as boolean,
    durationSeconds: readNumber(v[COL.duration_seconds]),
    activatedAt: time(v[COL.activated_at]),
    lastHandshake: time(v[COL.last_handshake]),
    onlineNow,
    downRate: readNumber(v[COL.down_rate]),
    upRate: readNumber(v[COL.up_rate]),
    status: v[COL.status] as ClientStatus,
    subId: v[COL.sub_id] as string,
    interfaceIds: (v[COL.interface_ids] as string[] | null) ?? [],
    createdAt: requiredTime(v[COL.created_at]),
    updatedAt: requiredTime(v[COL.updated_at]),
  };
}

/** A device as the API shows it: no private or preshared key, ever. */
export interface DeviceView {
  id: string;
  clientId: string;
  name: string;
  upBytes: number;
  downBytes: number;
  lastHandshake: Date | null;
  onlineNow: boolean;
  createdAt: Date;
  accounts: AccountView[];
}

/** One device's peer on one interface; keys shown are public keys only. */
export interface AccountView {
  id: string;
  interfaceId: string;
  nodeId: string;
  ip: string;
  publicKey: string;
  enabled: boolean;
  upBytes: number;
  downBytes: number;
  lastHandshake: Date | null;
  lastEndpoint: string | null;
  /** Bytes per second in the agent's latest report of this peer; 0 once that report lapsed. */
  downRate: number;
  upRate: number;
}
