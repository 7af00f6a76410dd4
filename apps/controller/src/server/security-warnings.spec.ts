import { compareVersions, versionSkew } from '#libs/version/version-skew.js';
import { securityWarnings, type SecurityFacts } from './security-warnings.js';

const SAFE: SecurityFacts = {
  owners: [{ username: 'owner', passwordChangedAt: new Date(), totpEnabled: true }],
  tlsEnabled: true,
  trustedProxies: 0,
  allowPrivateTargets: false,
  backupIntervalHours: 24,
  panelVersion: '1.4.0',
  agents: [{ nodeName: 'edge-1', version: '1.4.0' }],
  redisMaxMemory: 1 << 30,
};

const codes = (over: Partial<SecurityFacts>) => securityWarnings({ ...SAFE, ...over }).map((warning) => warning.code);

describe('securityWarnings', () => {
  test('a safe panel has none; each fact turns its own warning on', () => {
    expect(codes({})).toEqual([]);
    expect(codes({ owners: [{ username: 'o', passwordChangedAt: null, totpEnabled: true }] })).toEqual([
      'owner-password-unchanged',
    ]);
    expect(codes({ owners: [{ username: 'o', passwordChangedAt: new Date(), totpEnabled: false }] })).toEqual([
      'owner-two-factor-off',
    ]);
    expect(codes({ tlsEnabled: false })).toEqual(['tls-off-without-proxy']);
    expect(codes({ tlsEnabled: false, trustedProxies: 1 })).toEqual([]);
    expect(codes({ allowPrivateTargets: true })).toEqual(['private-targets-allowed']);
    expect(codes({ backupIntervalHours: 0 })).toEqual(['backups-not-scheduled']);
    expect(codes({ agents: [{ nodeName: 'edge-1', version: '1.3.9' }] })).toEqual(['agents-older-than-panel']);
    expect(codes({ agents: [{ nodeName: 'edge-1', version: '1.5.0' }] })).toEqual([]);
    expect(codes({ redisMaxMemory: 0 })).toEqual(['redis-without-maxmemory']);
    expect(codes({ redisMaxMemory: null })).toEqual([]);
  });

  test('most severe first', () => {
    const all = securityWarnings({
      ...SAFE,
      owners: [{ username: 'o', passwordChangedAt: null, totpEnabled: false }],
      tlsEnabled: false,
      redisMaxMemory: 0,
      backupIntervalHours: 0,
    });
    expect(all.map((warning) => warning.severity)).toEqual(['critical', 'critical', 'warning', 'warning', 'info']);
  });
});

describe('compareVersions', () => {
  test.each([
    ['1.10.0', '1.9.2', 1],
    ['1.2.0-rc.1', '1.2.0', -1],
    ['v1.2.3', '1.2.3', 0],
    ['0.0.1', '0.1.0', -1],
    ['dev', '1.0.0', 0],
  ])('%s against %s', (a, b, sign) => {
    expect(Math.sign(compareVersions(a, b))).toBe(sign);
  });
});

describe('versionSkew', () => {
  test.each([
    ['1.4.0', '1.4.0', 'same'],
    ['1.3.9', '1.4.0', 'older'],
    ['1.5.0', '1.4.0', 'newer'],
    ['dev', '1.4.0', 'different'],
  ] as const)('agent %s against panel %s', (agent, panel, skew) => {
    expect(versionSkew(agent, panel)).toBe(skew);
  });
});
