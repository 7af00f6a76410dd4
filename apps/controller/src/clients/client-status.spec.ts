import {
  activationOnFirstUse,
  affectsPeers,
  cycleAnchor,
  isLive,
  lastCycleBoundary,
  nextStatus,
  statusFromFacts,
  type StatusFacts,
} from './client-status.js';
import type { ClientStatus } from './client.entity.js';

const NOW = new Date('2027-03-15T12:00:00.000Z');
const past = new Date(NOW.getTime() - 1);
const future = new Date(NOW.getTime() + 1);

function facts(overrides: Partial<StatusFacts> = {}): StatusFacts {
  return { quotaBytes: 0, usedBytes: 0, expiresAt: null, ...overrides };
}

describe('statusFromFacts', () => {
  test.each<[string, Partial<StatusFacts>, ClientStatus]>([
    ['no quota, no expiry', {}, 'active'],
    ['unlimited quota ignores usage', { quotaBytes: 0, usedBytes: 10 ** 15 }, 'active'],
    ['under quota', { quotaBytes: 100, usedBytes: 99 }, 'active'],
    ['exactly at quota', { quotaBytes: 100, usedBytes: 100 }, 'exhausted'],
    ['over quota', { quotaBytes: 100, usedBytes: 101 }, 'exhausted'],
    ['expiry in the future', { expiresAt: future }, 'active'],
    ['expiry exactly now', { expiresAt: NOW }, 'expired'],
    ['expiry in the past', { expiresAt: past }, 'expired'],
    ['expired wins over exhausted', { quotaBytes: 1, usedBytes: 5, expiresAt: past }, 'expired'],
  ])('%s', (_, overrides, expected) => {
    expect(statusFromFacts(facts(overrides), NOW)).toBe(expected);
  });
});

describe('nextStatus', () => {
  test('enabled:false disables whatever the facts say', () => {
    for (const current of ['active', 'expired', 'exhausted', 'disabled', null] as const) {
      expect(nextStatus(current, facts(), NOW, false)).toBe('disabled');
    }
  });

  test('a disabled client stays disabled unless enabled:true', () => {
    expect(nextStatus('disabled', facts(), NOW)).toBe('disabled');
    expect(nextStatus('disabled', facts({ quotaBytes: 100 }), NOW, undefined)).toBe('disabled');
  });

  test('enabled:true recomputes: active, expired or exhausted', () => {
    expect(nextStatus('disabled', facts(), NOW, true)).toBe('active');
    expect(nextStatus('disabled', facts({ expiresAt: past }), NOW, true)).toBe('expired');
    expect(nextStatus('disabled', facts({ quotaBytes: 10, usedBytes: 10 }), NOW, true)).toBe('exhausted');
  });

  test('a new client (no current status) starts from its facts', () => {
    expect(nextStatus(null, facts(), NOW)).toBe('active');
    expect(nextStatus(null, facts(), NOW, true)).toBe('active');
  });

  test('raising the quota above usage revives exhausted', () => {
    const exhausted = facts({ quotaBytes: 100, usedBytes: 150 });
    expect(nextStatus('active', exhausted, NOW)).toBe('exhausted');
    expect(nextStatus('exhausted', { ...exhausted, quotaBytes: 151 }, NOW)).toBe('active');
    expect(nextStatus('exhausted', { ...exhausted, quotaBytes: 150 }, NOW)).toBe('exhausted');
    expect(nextStatus('exhausted', { ...exhausted, quotaBytes: 0 }, NOW)).toBe('active');
  });

  test('raising the quota does not revive an expired client', () => {
    expect(nextStatus('expired', facts({ quotaBytes: 10 ** 12, usedBytes: 5, expiresAt: past }), NOW)).toBe('expired');
  });

  test('moving expiry to the future or clearing it revives expired', () => {
    expect(nextStatus('expired', facts({ expiresAt: future }), NOW)).toBe('active');
    expect(nextStatus('expired', facts({ expiresAt: null }), NOW)).toBe('active');
    // ... into exhaustion when the quota is used up meanwhile
    expect(nextStatus('expired', facts({ expiresAt: null, quotaBytes: 1, usedBytes: 1 }), NOW)).toBe('exhausted');
  });

  test('a reset (usage zeroed) revives exhausted but not expired or disabled', () => {
    const zeroed = facts({ quotaBytes: 100, usedBytes: 0 });
    expect(nextStatus('exhausted', zeroed, NOW)).toBe('active');
    expect(nextStatus('expired', { ...zeroed, expiresAt: past }, NOW)).toBe('expired');
    expect(nextStatus('disabled', zeroed, NOW)).toBe('disabled');
  });
});

describe('liveness', () => {
  test('only active clients keep peers', () => {
    expect(isLive('active')).toBe(true);
    for (const status of ['disabled', 'expired', 'exhausted'] as const) expect(isLive(status)).toBe(false);
  });

  test('a transition affects peers only when it crosses active', () => {
    expect(affectsPeers('active', 'expired')).toBe(true);
    expect(affectsPeers('exhausted', 'active')).toBe(true);
    expect(affectsPeers('disabled', 'active')).toBe(true);
    expect(affectsPeers('exhausted', 'expired')).toBe(false);
    expect(affectsPeers('disabled', 'expired')).toBe(false);
    expect(affectsPeers('active', 'active')).toBe(false);
  });
});

describe('activationOnFirstUse', () => {
  const waiting = { startOnFirstUse: true, activatedAt: null, durationSeconds: 3 * 86_400 };

  test('the first use starts the period and sets the expiry', () => {
    expect(activationOnFirstUse(waiting, NOW)).toEqual({
      activatedAt: NOW,
      expiresAt: new Date('2027-03-18T12:00:00.000Z'),
    });
  });

  test('only once, and only for clients that start on first use', () => {
    expect(activationOnFirstUse({ ...waiting, activatedAt: past }, NOW)).toBeNull();
    expect(activationOnFirstUse({ ...waiting, startOnFirstUse: false }, NOW)).toBeNull();
  });
});

describe('reset cycles', () => {
  const at = (iso: string) => new Date(iso);

  test('counts from the last reset, else activation, else creation', () => {
    const createdAt = at('2027-01-01T00:00:00Z');
    const activatedAt = at('2027-01-05T00:00:00Z');
    const lastResetAt = at('2027-01-09T00:00:00Z');
    expect(cycleAnchor({ lastResetAt, activatedAt, createdAt })).toBe(lastResetAt);
    expect(cycleAnchor({ lastResetAt: null, activatedAt, createdAt })).toBe(activatedAt);
    expect(cycleAnchor({ lastResetAt: null, activatedAt: null, createdAt })).toBe(createdAt);
  });

  test('none never renews', () => {
    expect(lastCycleBoundary('none', at('2020-01-01T00:00:00Z'), NOW)).toBeNull();
  });

  test('daily: whole days after the anchor, the latest one', () => {
    const anchor = at('2027-03-10T08:30:00Z');
    expect(lastCycleBoundary('daily', anchor, at('2027-03-11T08:29:59.999Z'))).toBeNull();
    expect(lastCycleBoundary('daily', anchor, at('2027-03-11T08:30:00Z'))).toEqual(at('2027-03-11T08:30:00Z'));
    expect(lastCycleBoundary('daily', anchor, at('2027-03-15T12:00:00Z'))).toEqual(at('2027-03-15T08:30:00Z'));
  });

  test('weekly: whole weeks', () => {
    const anchor = at('2027-03-01T00:00:00Z');
    expect(lastCycleBoundary('weekly', anchor, at('2027-03-07T23:59:59Z'))).toBeNull();
    expect(lastCycleBoundary('weekly', anchor, at('2027-03-08T00:00:00Z'))).toEqual(at('2027-03-08T00:00:00Z'));
    expect(lastCycleBoundary('weekly', anchor, at('2027-03-29T00:00:01Z'))).toEqual(at('2027-03-29T00:00:00Z'));
  });

  test('monthly: calendar months in UTC, clamped to the end of short months', () => {
    const anchor = at('2027-01-31T10:00:00Z');
    expect(lastCycleBoundary('monthly', anchor, at('2027-02-28T09:59:59Z'))).toBeNull();
    expect(lastCycleBoundary('monthly', anchor, at('2027-02-28T10:00:00Z'))).toEqual(at('2027-02-28T10:00:00Z'));
    expect(lastCycleBoundary('monthly', anchor, at('2027-03-30T00:00:00Z'))).toEqual(at('2027-02-28T10:00:00Z'));
    expect(lastCycleBoundary('monthly', anchor, at('2027-03-31T10:00:00Z'))).toEqual(at('2027-03-31T10:00:00Z'));
    expect(lastCycleBoundary('monthly', at('2028-01-31T00:00:00Z'), at('2028-02-29T00:00:00Z'))).toEqual(
      at('2028-02-29T00:00:00Z'),
    );
    expect(lastCycleBoundary('monthly', at('2026-12-15T00:00:00Z'), at('2027-01-15T00:00:00Z'))).toEqual(
      at('2027-01-15T00:00:00Z'),
    );
    expect(lastCycleBoundary('monthly', at('2026-12-15T00:00:00Z'), at('2027-01-14T23:59:59Z'))).toBeNull();
    expect(lastCycleBoundary('monthly', at('2025-06-15T00:00:00Z'), NOW)).toEqual(at('2027-03-15T00:00:00Z'));
  });

  test('a clock behind the anchor renews nothing', () => {
    for (const cycle of ['daily', 'weekly', 'monthly'] as const) {
      expect(lastCycleBoundary(cycle, future, NOW)).toBeNull();
      expect(lastCycleBoundary(cycle, NOW, NOW)).toBeNull();
    }
  });
});
