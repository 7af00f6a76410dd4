import { badRequest } from '../http/api-error.js';
import type { ClientTerms } from '../resellers/ceilings.js';
import type { LockedInterface } from './accounts.repository.js';
import type { ClientStatus, ResetCycle } from './client.entity.js';
import { nextStatus } from './client-status.js';
import type { CreateClientDto } from './dto/client.dto.js';

/** What a creation body says of the client, besides its name and devices. */
export type CreationSettingsInput = Pick<
  CreateClientDto,
  | 'quotaBytes'
  | 'expiresAt'
  | 'deviceLimit'
  | 'startOnFirstUse'
  | 'durationDays'
  | 'durationHours'
  | 'resetCycle'
  | 'enabled'
  | 'rateBitsPerSec'
>;

/** The settings of a new client, checked: the same for one client (POST /api/clients) and a batch. */
export interface CreationSettings {
  quotaBytes: number;
  expiresAt: Date | null;
  deviceLimit: number;
  startOnFirstUse: boolean;
  durationSeconds: number;
  resetCycle: ResetCycle;
  rateBitsPerSec: number;
  status: ClientStatus;
}

/**
 * Checks the rules that tie a creation's fields together (a future expiry, a duration only with
 * start-on-first-use, `devices` devices within the device limit) and fills in the defaults.
 */
export function creationSettings(
  dto: CreationSettingsInput,
  devices: number,
  now: Date,
  deviceField = 'deviceNames',
): CreationSettings {
  const deviceLimit = dto.deviceLimit ?? 1;
  if (deviceLimit > 0 && devices > deviceLimit) {
    throw badRequest(`${devices} devices exceed the device limit of ${deviceLimit}`, deviceField);
  }
  const expiresAt = dto.expiresAt ? new Date(dto.expiresAt) : null;
  if (expiresAt && expiresAt.getTime() <= now.getTime())
    throw badRequest('expiresAt must lie in the future', 'expiresAt');
  const durationSeconds = (dto.durationDays ?? 0) * 86_400 + (dto.durationHours ?? 0) * 3_600;
  const startOnFirstUse = dto.startOnFirstUse ?? false;
  if (startOnFirstUse && durationSeconds <= 0) {
    throw badRequest('startOnFirstUse needs a duration: durationDays or durationHours above 0', 'durationDays');
  }
  if (!startOnFirstUse && durationSeconds > 0) {
    throw badRequest('durationDays and durationHours apply only with startOnFirstUse: true', 'durationDays');
  }
  if (startOnFirstUse && expiresAt) {
    throw badRequest(
      'a client that starts on first use gets its expiry from the first use; leave expiresAt out',
      'expiresAt',
    );
  }
  const quotaBytes = dto.quotaBytes ?? 0;
  return {
    quotaBytes,
    expiresAt,
    deviceLimit,
    startOnFirstUse,
    durationSeconds,
    resetCycle: dto.resetCycle ?? 'none',
    rateBitsPerSec: dto.rateBitsPerSec ?? 0,
    status: nextStatus(null, { quotaBytes, usedBytes: 0, expiresAt }, now, dto.enabled ?? true),
  };
}

/** The terms of new clients a reseller's ceilings judge (resellers/ceilings.ts), on `interfaces`. */
export function creationTerms(settings: CreationSettings, interfaces: readonly LockedInterface[]): ClientTerms {
  return {
    quotaBytes: settings.quotaBytes,
    expiresAt: settings.expiresAt,
    ...(settings.startOnFirstUse ? { durationSeconds: settings.durationSeconds } : {}),
    interfaces: interfaces.map((iface) => ({ id: iface.id, nodeId: iface.nodeId })),
    deviceLimit: settings.deviceLimit,
  };
}
