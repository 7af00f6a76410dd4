import type { FieldError } from '#libs/contracts/api-error.js';
import { isAssignable, parseInterfaceSubnet } from '#libs/wireguard/address-pool.js';
import { formatCidr, isIpv4 } from '#libs/wireguard/ipv4.js';
import { isWireGuardKey, publicKeyFromPrivate } from '#libs/wireguard/keys.js';
import { CLIENT_LIMITS } from '../dto/client.dto.js';
import { rowError, type ImportDevice, type ImportRow } from './import-rows.js';
import type { ExistingClient, Holder } from './transfer.repository.js';

export type ImportAction = 'create' | 'update' | 'refuse';

/** One row's fate: created, an existing client of its name updated, or refused with its reasons. */
export interface PlannedRow {
  row: ImportRow;
  action: ImportAction;
  existing?: ExistingClient;
  errors: FieldError[];
}

/** What the plan reads of the target interface and the database. */
export interface PlanContext {
  subnet: string;
  existing: Map<string, ExistingClient>;
  holders: { byIp: Map<string, Holder>; byKey: Map<string, Holder> };
}

const NO_CONTROL = /^[^\u0000-\u001f\u007f]*$/;

/** A device's address without the `/32` some panels write. */
export const bareIp = (ip: string | undefined) => ip?.trim().replace(/\/32$/, '');

/**
 * Decides every row: all of a row's problems are listed (field by field, in the file's names), a
 * row with any is refused. Addresses and public keys must be unique within the file and free on
 * the interface, unless the row updates the client that holds them already.
 */
export function planImport(rows: readonly ImportRow[], context: PlanContext): PlannedRow[] {
  const subnet = parseInterfaceSubnet(context.subnet);
  const seenNames = new Map<string, number>();
  const seenIps = new Map<string, number>();
  const seenKeys = new Map<string, number>();
  return rows.map((row) => {
    const errors = [...row.errors];
    const at = `rows[${row.row}]`;
    const lower = row.name.toLowerCase();
    if (row.name === '') errors.push(rowError(`${at}.name`, 'the client has no name', 'required'));
    else if (row.name.length > CLIENT_LIMITS.nameLength)
      errors.push(rowError(`${at}.name`, `the name is longer than ${CLIENT_LIMITS.nameLength} characters`, 'tooLong'));
    else if (!NO_CONTROL.test(row.name)) errors.push(rowError(`${at}.name`, 'the name holds control characters'));
    const earlier = seenNames.get(lower);
    if (row.name !== '' && earlier !== undefined)
      errors.push(rowError(`${at}.name`, `the name "${row.name}" repeats row ${earlier}`, 'duplicate'));
    else seenNames.set(lower, row.row);
    if (row.note !== undefined && row.note.length > CLIENT_LIMITS.noteLength)
      errors.push(rowError(`${at}.note`, `the note is longer than ${CLIENT_LIMITS.noteLength} characters`, 'tooLong'));
    if (
      row.groups &&
      (row.groups.length > CLIENT_LIMITS.groups ||
        row.groups.some((group) => group === '' || group.length > CLIENT_LIMITS.groupLength || !NO_CONTROL.test(group)))
    )
      errors.push(
        rowError(
          `${at}.groups`,
          `at most ${CLIENT_LIMITS.groups} groups of 1..${CLIENT_LIMITS.groupLength} characters`,
        ),
      );
    if (row.devices.length > CLIENT_LIMITS.deviceNames)
      errors.push(rowError(`${at}.devices`, `more than ${CLIENT_LIMITS.deviceNames} devices`, 'tooMany'));
    if (row.deviceLimit !== undefined && row.deviceLimit > CLIENT_LIMITS.deviceLimit)
      errors.push(rowError(`${at}.deviceLimit`, `deviceLimit is at most ${CLIENT_LIMITS.deviceLimit}`, 'tooLarge'));
    else if (row.deviceLimit !== undefined && row.deviceLimit > 0 && row.devices.length > row.deviceLimit)
      errors.push(
        rowError(`${at}.deviceLimit`, `${row.devices.length} devices exceed the device limit of ${row.deviceLimit}`),
      );

    const existing = row.name === '' ? undefined : context.existing.get(lower);
    for (const device of row.devices)
      errors.push(...checkDevice(device, row.row, subnet, existing, context, seenIps, seenKeys));
    const action: ImportAction = errors.length > 0 ? 'refuse' : existing ? 'update' : 'create';
    return { row, action, existing, errors };
  });
}

function checkDevice(
  device: ImportDevice,
  row: number,
  subnet: ReturnType<typeof parseInterfaceSubnet>,
  existing: ExistingClient | undefined,
  context: PlanContext,
  seenIps: Map<string, number>,
  seenKeys: Map<string, number>,
): FieldError[] {
  const errors: FieldError[] = [];
  const field = (name: 'ip' | 'privateKey' | 'publicKey' | 'presharedKey') =>
    `${device.at}.${device.names?.[name] ?? name}`;
  const ip = bareIp(device.ip);
  const generated =
    device.privateKey === undefined && device.publicKey === undefined && device.presharedKey === undefined;
  if (!generated) {
    if (device.privateKey === undefined)
      errors.push(
        rowError(field('privateKey'), 'the private key is missing: the profile cannot be made without it', 'required'),
      );
    else if (!isWireGuardKey(device.privateKey)) errors.push(rowError(field('privateKey'), 'not a WireGuard key'));
    else if (device.publicKey !== undefined && publicKeyFromPrivate(device.privateKey) !== device.publicKey)
      errors.push(rowError(field('publicKey'), 'the public key does not belong to the private key'));
    // No preshared key (wg-easy v15 allows peers without): the peer keeps having none, on the
    // server as in the profile the old panel made, so that profile keeps working.
    if (device.presharedKey !== undefined && !isWireGuardKey(device.presharedKey))
      errors.push(rowError(field('presharedKey'), 'not a WireGuard key'));
  }
  const publicKey =
    device.publicKey ??
    (device.privateKey && isWireGuardKey(device.privateKey) ? publicKeyFromPrivate(device.privateKey) : undefined);
  if (ip !== undefined) {
    if (!isIpv4(ip)) errors.push(rowError(field('ip'), `"${ip}" is not an IPv4 address`));
    else if (!isAssignable(subnet, ip))
      errors.push(
        rowError(field('ip'), `${ip} is not an address of the interface's subnet ${formatCidr(subnet)}`, 'outOfRange'),
      );
    else {
      const earlier = seenIps.get(ip);
      if (earlier !== undefined) errors.push(rowError(field('ip'), `${ip} repeats row ${earlier}`, 'duplicate'));
      else seenIps.set(ip, row);
      const holder = context.holders.byIp.get(ip);
      if (holder && !(existing && holder.clientId === existing.id && holder.publicKey === publicKey))
        errors.push(rowError(field('ip'), `${ip} is in use on the interface by another device`, 'conflict'));
    }
  }
  if (publicKey !== undefined && isWireGuardKey(publicKey)) {
    const earlier = seenKeys.get(publicKey);
    if (earlier !== undefined) errors.push(rowError(field('publicKey'), `the key repeats row ${earlier}`, 'duplicate'));
    else seenKeys.set(publicKey, row);
    const holder = context.holders.byKey.get(publicKey);
    if (holder && !(existing && holder.clientId === existing.id && holder.ip === ip))
      errors.push(
        rowError(field('publicKey'), 'the public key is in use on the interface by another device', 'conflict'),
      );
  }
  // A client of the same name is updated only when it already holds this device (same key and address).
  if (existing && errors.length === 0) {
    const holder = publicKey === undefined ? undefined : context.holders.byKey.get(publicKey);
    if (!holder || holder.clientId !== existing.id)
      errors.push(
        rowError(
          `rows[${row}].name`,
          `a client named "${existing.name}" exists without this device; rename the row or delete that client`,
          'conflict',
        ),
      );
  }
  return errors;
}
