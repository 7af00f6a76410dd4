import {
  fileDate,
  isRecord,
  rowError,
  text,
  UnreadableFile,
  type ImportDevice,
  type ImportFile,
  type ImportRow,
} from './import-rows.js';
import type { FieldError } from '#libs/contracts/api-error.js';

/** The client fields Warren's exports and W-UI's share (W-UI's names are Warren's: docs/import.md). */
export function clientFields(
  client: Record<string, unknown>,
  at: string,
  errors: FieldError[],
): Omit<ImportRow, 'row' | 'devices' | 'errors'> {
  const number = (field: string): number | undefined => {
    const value = client[field];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
      errors.push(rowError(`${at}.${field}`, `${field} must be a whole number of at least 0`));
      return undefined;
    }
    return value;
  };
  const expiresAt = fileDate(client.expiresAt);
  if (expiresAt === undefined) errors.push(rowError(`${at}.expiresAt`, 'expiresAt is not a date'));
  const groups = client.groups;
  if (groups !== undefined && (!Array.isArray(groups) || !groups.every((group) => typeof group === 'string')))
    errors.push(rowError(`${at}.groups`, 'groups must be a list of names'));
  const telegramId = client.telegramId;
  return {
    name: text(client.name)?.trim() ?? '',
    note: text(client.note),
    groups: Array.isArray(groups) ? (groups as string[]).map((group) => group.trim()) : undefined,
    telegramId:
      typeof telegramId === 'number' && Number.isSafeInteger(telegramId) && telegramId > 0 ? telegramId : null,
    quotaBytes: number('quotaBytes'),
    usedBytes: number('usedBytes'),
    deviceLimit: number('deviceLimit'),
    expiresAt: expiresAt ?? null,
    enabled: client.enabled === undefined ? client.status !== 'disabled' : client.enabled !== false,
  };
}

function account(entry: Record<string, unknown>, name: string, at: string): ImportDevice {
  return {
    name,
    ip: text(entry.ip),
    privateKey: text(entry.privateKey),
    publicKey: text(entry.publicKey),
    // An export of a peer without one writes it empty: no preshared key.
    presharedKey: text(entry.presharedKey) || undefined,
    at,
  };
}

/**
 * Warren's own export (GET /api/clients/export?format=json): `{format: "warren-clients", clients:
 * [{..., devices: [{name, accounts: [{interface, ip, publicKey, privateKey?, presharedKey?}]}]}]}`.
 * Each device brings its account on `sourceInterface` (by name), or its only account.
 */
export function readWarrenExport(file: Record<string, unknown>, sourceInterface?: string): ImportFile {
  if (!Array.isArray(file.clients)) throw new UnreadableFile('a Warren export has a "clients" list');
  const rows = file.clients.map((client: unknown, index): ImportRow => {
    const row = index + 1;
    const at = `rows[${row}]`;
    const errors: FieldError[] = [];
    if (!isRecord(client))
      return { row, name: '', enabled: false, devices: [], errors: [rowError(at, `row ${row} is not a client`)] };
    const devices = (Array.isArray(client.devices) ? client.devices : []).flatMap(
      (device: unknown, d): ImportDevice[] => {
        const deviceAt = `${at}.devices[${d + 1}]`;
        if (!isRecord(device)) return [];
        const accounts = (Array.isArray(device.accounts) ? device.accounts : []).filter(isRecord);
        const picked =
          sourceInterface === undefined ? accounts : accounts.filter((entry) => entry.interface === sourceInterface);
        if (picked.length > 1) {
          errors.push(
            rowError(
              `${deviceAt}.accounts`,
              `the device has accounts on ${picked.length} interfaces; name one with sourceInterface`,
            ),
          );
          return [];
        }
        const name = text(device.name) ?? `device-${d + 1}`;
        return picked.length === 0 ? [] : [account(picked[0], name, `${deviceAt}.accounts[1]`)];
      },
    );
    if (devices.length === 0 && errors.length === 0)
      errors.push(rowError(`${at}.devices`, 'the client has no device to import'));
    return { row, ...clientFields(client, at, errors), devices, errors };
  });
  return { format: 'warren', rows };
}

/**
 * W-UI's client export. Its shape is not published; this is the one read here (docs/import.md),
 * in W-UI's own field names (domain.md): `{clients: [{name, note, groups, telegramId, quotaBytes,
 * usedBytes, expiresAt, deviceLimit, status, accounts: [{interfaceId, deviceName, ip, publicKey,
 * privateKey, presharedKey}]}]}`. Accounts of one device name: one device. `sourceInterface`
 * (a W-UI interface id) picks the accounts of that interface when a client has several.
 */
export function readWuiExport(file: Record<string, unknown>, sourceInterface?: string): ImportFile {
  if (!Array.isArray(file.clients)) throw new UnreadableFile('a W-UI export has a "clients" list');
  const rows = file.clients.map((client: unknown, index): ImportRow => {
    const row = index + 1;
    const at = `rows[${row}]`;
    const errors: FieldError[] = [];
    if (!isRecord(client))
      return { row, name: '', enabled: false, devices: [], errors: [rowError(at, `row ${row} is not a client`)] };
    const accounts = (Array.isArray(client.accounts) ? client.accounts : []).filter(isRecord);
    const picked =
      sourceInterface === undefined ? accounts : accounts.filter((entry) => entry.interfaceId === sourceInterface);
    const interfaces = new Set(picked.map((entry) => entry.interfaceId));
    if (interfaces.size > 1) {
      errors.push(
        rowError(
          `${at}.accounts`,
          `the client has accounts on ${interfaces.size} interfaces; name one with sourceInterface`,
        ),
      );
    }
    const devices =
      interfaces.size > 1
        ? []
        : picked.map((entry, a) =>
            account(entry, text(entry.deviceName) ?? `device-${a + 1}`, `${at}.accounts[${a + 1}]`),
          );
    if (devices.length === 0 && errors.length === 0)
      errors.push(rowError(`${at}.accounts`, 'the client has no account to import'));
    return { row, ...clientFields(client, at, errors), devices, errors };
  });
  return { format: 'w-ui', rows };
}
