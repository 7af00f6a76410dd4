import { Inject, Injectable } from '@nestjs/common';
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import { sharingReason, type SharingReason } from './sharing-rule.js';
import {
  readSharingSettings,
  SharingRepository,
  type DeviceMoves,
  type SharingSettings,
} from './sharing.repository.js';

export interface SharedDevice extends DeviceMoves {
  reason: SharingReason;
}

/**
 * Account sharing (W-UI's GET /api/sharing): devices whose endpoints move between many addresses,
 * or between several at once, within a window; the evidence is the addresses with when and how
 * often. The optional rule (setting `sharingAction: disable`) disables such a device's client as
 * its counters arrive.
 */
@Injectable()
export class SharingService {
  constructor(
    @Inject(MikroORM) private readonly orm: MikroORM,
    private readonly sharing: SharingRepository,
  ) {}

  async list(now = new Date()): Promise<SharingSettings & { since: Date; devices: SharedDevice[] }> {
    const em = this.orm.em.fork();
    const settings = await readSharingSettings(em);
    const since = new Date(now.getTime() - settings.windowMinutes * 60_000);
    const devices = flagged(await this.sharing.movesSince(em, since), settings.maxAddresses);
    return { ...settings, since, devices };
  }

  /**
   * Inside a counter batch's transaction, after its statement recorded the endpoint moves of
   * `moved` devices (usage.repository.ts): keeps their rows bounded and, when the rule says
   * disable, disables the clients of devices found sharing. Returns the clients it disabled
   * (their peers must leave their nodes).
   */
  async afterMoves(em: EntityManager, moved: readonly string[], now: Date): Promise<string[]> {
    if (moved.length === 0) return [];
    await this.sharing.pruneMoved(em, moved, now);
    const settings = await readSharingSettings(em);
    if (settings.action !== 'disable') return [];
    const since = new Date(now.getTime() - settings.windowMinutes * 60_000);
    const found = flagged(await this.sharing.movesSince(em, since, moved), settings.maxAddresses);
    return this.sharing.disableClients(em, [...new Set(found.map((device) => device.clientId))], now);
  }
}

function flagged(devices: readonly DeviceMoves[], maxAddresses: number): SharedDevice[] {
  const result: SharedDevice[] = [];
  for (const device of devices) {
    const reason = sharingReason(device.addresses, maxAddresses);
    if (reason) result.push({ ...device, reason });
  }
  return result;
}
