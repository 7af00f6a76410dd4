/**
 * Panel-wide options (GET/PATCH /api/settings). Stored one row per key (settings.entity.ts), so a
 * key added later reads as its default on a panel, or from a backup, that never stored it.
 */
export interface PanelSettings {
  /** Hours between scheduled backups; 0 turns the schedule off. */
  backupIntervalHours: number;
  /** How many of the newest backups are kept; older ones are deleted after each backup. */
  backupKeep: number;
  /** What an `http` probe fetches through a hop (a 204 or any 2xx/3xx answer counts as reachable). */
  probeUrl: string;
  /** How long a probe may take, end to end, before it counts as a timeout. */
  probeTimeoutMs: number;
  /**
   * Let hop addresses and probe targets be loopback, link-local or the panel's own addresses.
   * Off by default: a probe is a request the panel makes on the caller's behalf, and private
   * targets would let it reach services that are not meant to be reachable from outside.
   */
  allowPrivateTargets: boolean;
  /**
   * Seconds between the periodic checks of every hop (an http probe from its node, jittered);
   * 0 turns them off. A hop whose check fails is `down` until one passes.
   */
  hopCheckIntervalSeconds: number;
  /** Days the audit log keeps an entry (docs/audit.md); older ones are deleted by the periodic maintenance. */
  auditRetentionDays: number;
  /** Minutes GET /api/sharing looks back at where devices' endpoints moved (docs/clients.md, "Sharing"). */
  sharingWindowMinutes: number;
  /** Distinct addresses of one device within the window that count as sharing. */
  sharingMaxAddresses: number;
  /** What a device found sharing does to its client: `flag` lists it only, `disable` also disables the client. */
  sharingAction: SharingAction;
}

export const SHARING_ACTIONS = ['flag', 'disable'] as const;
export type SharingAction = (typeof SHARING_ACTIONS)[number];

export const DEFAULT_SETTINGS: Readonly<PanelSettings> = Object.freeze({
  backupIntervalHours: 24,
  backupKeep: 7,
  probeUrl: 'http://cp.cloudflare.com/generate_204',
  probeTimeoutMs: 5000,
  allowPrivateTargets: false,
  hopCheckIntervalSeconds: 60,
  auditRetentionDays: 365,
  sharingWindowMinutes: 60,
  sharingMaxAddresses: 3,
  sharingAction: 'flag',
});

/** Bounds shared by the request DTO and the read path (a stored value out of bounds reads as the default). */
export const SETTING_BOUNDS = {
  backupIntervalHours: { min: 0, max: 720 },
  backupKeep: { min: 1, max: 1000 },
  probeTimeoutMs: { min: 500, max: 60_000 },
  probeUrlLength: 2048,
  hopCheckIntervalSeconds: { min: 0, max: 86_400 },
  auditRetentionDays: { min: 1, max: 3650 },
  sharingWindowMinutes: { min: 1, max: 1440 },
  sharingMaxAddresses: { min: 2, max: 32 },
} as const;

export type SettingKey = keyof PanelSettings;
export const SETTING_KEYS = Object.keys(DEFAULT_SETTINGS) as SettingKey[];
