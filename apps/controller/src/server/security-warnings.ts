/**
 * The panel's security warnings (GET /api/security/warnings, docs/operations.md "Security
 * warnings"): pure rules over facts gathered elsewhere, so each rule is read and tested alone.
 */
import { versionSkew } from '#libs/version/version-skew.js';

export const WARNING_SEVERITIES = ['critical', 'warning', 'info'] as const;
export type WarningSeverity = (typeof WARNING_SEVERITIES)[number];

export const WARNING_CODES = [
  'owner-password-unchanged',
  'owner-two-factor-off',
  'tls-off-without-proxy',
  'private-targets-allowed',
  'backups-not-scheduled',
  'agents-older-than-panel',
  'redis-without-maxmemory',
] as const;
export type WarningCode = (typeof WARNING_CODES)[number];

export interface SecurityWarning {
  code: WarningCode;
  severity: WarningSeverity;
  /** One sentence: what is wrong. */
  message: string;
  /** What to do about it. */
  action: string;
}

export interface SecurityFacts {
  /** Every enabled owner: a panel may have more than one. */
  owners: { username: string; passwordChangedAt: Date | null; totpEnabled: boolean }[];
  tlsEnabled: boolean;
  trustedProxies: number;
  allowPrivateTargets: boolean;
  backupIntervalHours: number;
  panelVersion: string;
  /** Agents that reported a version on their link. */
  agents: { nodeName: string; version: string }[];
  /** The queue store's Redis `maxmemory` (0: unlimited); null when not Redis or not readable. */
  redisMaxMemory: number | null;
}

const names = (list: { username: string }[]) => list.map((owner) => owner.username).join(', ');

export function securityWarnings(facts: SecurityFacts): SecurityWarning[] {
  const warnings: SecurityWarning[] = [];
  const unchanged = facts.owners.filter((owner) => owner.passwordChangedAt === null);
  if (unchanged.length > 0) {
    warnings.push({
      code: 'owner-password-unchanged',
      severity: 'critical',
      message: `The owner account ${names(unchanged)} still uses the password it was given at installation.`,
      action: 'Sign in as the owner and change the password (Account, Change password).',
    });
  }
  const noCode = facts.owners.filter((owner) => !owner.totpEnabled);
  if (noCode.length > 0) {
    warnings.push({
      code: 'owner-two-factor-off',
      severity: 'warning',
      message: `Two-factor sign-in is off for the owner account ${names(noCode)}.`,
      action: 'Turn on two-factor sign-in under Account, Two-factor, with an authenticator app.',
    });
  }
  if (!facts.tlsEnabled && facts.trustedProxies === 0) {
    warnings.push({
      code: 'tls-off-without-proxy',
      severity: 'critical',
      message:
        'The panel serves plain HTTP and trusts no proxy, so passwords and tokens may cross the network unencrypted.',
      action:
        'Remove WARREN_TLS=off (the panel then serves HTTPS), or put a TLS proxy in front and name it in WARREN_TRUSTED_PROXIES.',
    });
  }
  if (facts.allowPrivateTargets) {
    warnings.push({
      code: 'private-targets-allowed',
      severity: 'warning',
      message: 'Hops and probes may aim at private and loopback addresses, so an admin can reach internal services.',
      action: 'Turn off allowPrivateTargets in Settings unless your hops really live on a private network.',
    });
  }
  if (facts.backupIntervalHours === 0) {
    warnings.push({
      code: 'backups-not-scheduled',
      severity: 'warning',
      message: 'Scheduled backups are off: nothing is saved unless someone takes a backup by hand.',
      action: 'Set backupIntervalHours in Settings (24 takes one a day) and copy the archives off the host.',
    });
  }
  const older = facts.agents.filter((agent) => versionSkew(agent.version, facts.panelVersion) === 'older');
  if (older.length > 0) {
    const list = older.map((agent) => `${agent.nodeName} (${agent.version})`).join(', ');
    warnings.push({
      code: 'agents-older-than-panel',
      severity: 'warning',
      message: `Agents older than the panel (${facts.panelVersion}) run on: ${list}.`,
      action: "Update those nodes' agents to the panel's version (docs/agents.md).",
    });
  }
  if (facts.redisMaxMemory === 0) {
    warnings.push({
      code: 'redis-without-maxmemory',
      severity: 'info',
      message:
        'The Redis that holds the job queues has no memory limit (maxmemory 0) and can grow until the host runs out.',
      action: 'Set maxmemory in redis.conf (with maxmemory-policy noeviction, which job queues need).',
    });
  }
  // Most severe first; the order of the rules above within one severity.
  const rank = (warning: SecurityWarning) => WARNING_SEVERITIES.indexOf(warning.severity);
  return warnings.sort((a, b) => rank(a) - rank(b));
}
