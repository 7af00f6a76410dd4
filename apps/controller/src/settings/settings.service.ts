import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import type { UserRole } from '#libs/contracts/user-roles.js';
import { assertPublicTarget } from '../common/private-targets.js';
import { badRequest, forbidden } from '../http/api-error.js';
import {
  DEFAULT_SETTINGS,
  SETTING_BOUNDS,
  SETTING_KEYS,
  SHARING_ACTIONS,
  type PanelSettings,
} from './panel-settings.js';
import { SettingsRepository } from './settings.repository.js';

const b = SETTING_BOUNDS;
/** What a stored value must be to count: anything else (a row from a damaged restore, say) reads as the default. */
const storedValue: { [K in keyof PanelSettings]: z.ZodType<PanelSettings[K]> } = {
  backupIntervalHours: z.number().int().min(b.backupIntervalHours.min).max(b.backupIntervalHours.max),
  backupKeep: z.number().int().min(b.backupKeep.min).max(b.backupKeep.max),
  probeUrl: z.url({ protocol: /^https?$/ }).max(b.probeUrlLength),
  probeTimeoutMs: z.number().int().min(b.probeTimeoutMs.min).max(b.probeTimeoutMs.max),
  allowPrivateTargets: z.boolean(),
  hopCheckIntervalSeconds: z.number().int().min(b.hopCheckIntervalSeconds.min).max(b.hopCheckIntervalSeconds.max),
  auditRetentionDays: z.number().int().min(b.auditRetentionDays.min).max(b.auditRetentionDays.max),
  sharingWindowMinutes: z.number().int().min(b.sharingWindowMinutes.min).max(b.sharingWindowMinutes.max),
  sharingMaxAddresses: z.number().int().min(b.sharingMaxAddresses.min).max(b.sharingMaxAddresses.max),
  sharingAction: z.enum(SHARING_ACTIONS),
};

/** Keys only the owner changes (see update). */
export const OWNER_SETTINGS: (keyof PanelSettings)[] = [
  'backupKeep',
  'backupIntervalHours',
  'allowPrivateTargets',
  'auditRetentionDays',
];

type SettingsListener = (settings: PanelSettings, changed: (keyof PanelSettings)[]) => void | Promise<void>;

/** Panel-wide options: defaults for what was never set, validated writes, and who to tell. */
@Injectable()
export class SettingsService {
  private readonly listeners: SettingsListener[] = [];

  constructor(private readonly settings: SettingsRepository) {}

  async get(): Promise<PanelSettings> {
    const stored = await this.settings.read();
    const result: Record<string, unknown> = { ...DEFAULT_SETTINGS };
    for (const key of SETTING_KEYS) {
      const parsed = storedValue[key].safeParse(stored.get(key));
      if (parsed.success) result[key] = parsed.data;
    }
    return result as unknown as PanelSettings;
  }

  /**
   * `changes` is already validated (UpdateSettingsDto); only the keys given are written. Some keys
   * are the owner's: retention could delete every backup (which only the owner may delete), the
   * audit log's retention could delete its history (which only the owner reads), and private
   * targets open the panel's own services to probes.
   */
  async update(changes: Partial<PanelSettings>, role: UserRole): Promise<PanelSettings> {
    const given = Object.fromEntries(
      Object.entries(changes).filter(
        ([key, value]) => value !== undefined && SETTING_KEYS.includes(key as keyof PanelSettings),
      ),
    );
    const ownersOnly = OWNER_SETTINGS.find((key) => key in given);
    if (ownersOnly && role !== 'owner') throw forbidden(`only the owner may change ${ownersOnly}`, ownersOnly);
    if (typeof given.probeUrl === 'string') {
      const allowPrivate = (given.allowPrivateTargets as boolean | undefined) ?? (await this.get()).allowPrivateTargets;
      await this.assertUsableProbeUrl(given.probeUrl, allowPrivate);
    }
    // The agents get allowPrivateTargets with their desired state and refuse hops on forbidden
    // targets unless it is on: a change reaches every node with hops at once (turned off, hops
    // on private or loopback addresses stop, instead of running until the next change).
    const privateTargetsChange =
      typeof given.allowPrivateTargets === 'boolean' &&
      given.allowPrivateTargets !== (await this.get()).allowPrivateTargets;
    if (Object.keys(given).length > 0) await this.settings.write(given, { bumpHopNodes: privateTargetsChange });
    const settings = await this.get();
    for (const listener of this.listeners) await listener(settings, Object.keys(given) as (keyof PanelSettings)[]);
    return settings;
  }

  /**
   * What a probe URL must be beyond its DTO rule (an http(s) URL): one the WHATWG parser the
   * agent uses reads, so not with an IPv6 zone id (`[fe80::1%25eth0]`, which the DTO's
   * validator lets through: a zone names an interface of one host and means nothing on a node);
   * without credentials (every role reads the settings); and, unless private targets are
   * allowed, not aimed at a forbidden address. `field` is where the value was given.
   */
  async assertUsableProbeUrl(text: string, allowPrivate: boolean, field = 'probeUrl'): Promise<void> {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw badRequest(
        'probeUrl must be an http or https URL a probe can fetch (an IPv6 address with a zone id such as %25eth0 is not one)',
        field,
      );
    }
    if (url.username || url.password) throw badRequest('probeUrl must not carry a user name or password', field);
    if (!allowPrivate) await assertPublicTarget(url.hostname.replace(/^\[(.*)\]$/, '$1'), field, 'probes');
  }

  /** Called after every successful PATCH on this controller (the backup schedule follows its interval). */
  onChange(listener: SettingsListener): void {
    this.listeners.push(listener);
  }
}
