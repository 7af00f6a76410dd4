import { agentState, isUnmanaged } from './agent-state.js';

const now = Date.parse('2026-11-23T12:00:00Z');
const ago = (seconds: number) => new Date(now - seconds * 1000);

describe('agentState', () => {
  test.each([
    ['no credential', { hasCredential: false, connected: false, lastSeenAt: null }, 'never-enrolled'],
    [
      'no credential, even if seen (credential revoked)',
      { hasCredential: false, connected: true, lastSeenAt: ago(1) },
      'never-enrolled',
    ],
    ['a credential, never seen', { hasCredential: true, connected: false, lastSeenAt: null }, 'enrolled'],
    ['a live link seen 5 s ago', { hasCredential: true, connected: true, lastSeenAt: ago(5) }, 'connected'],
    ['a live link seen exactly 30 s ago', { hasCredential: true, connected: true, lastSeenAt: ago(30) }, 'connected'],
    [
      'connected left true by a crashed controller, seen 31 s ago',
      { hasCredential: true, connected: true, lastSeenAt: ago(31) },
      'disconnected',
    ],
    ['a closed link seen a second ago', { hasCredential: true, connected: false, lastSeenAt: ago(1) }, 'disconnected'],
    [
      'unmanaged, no credential (WARREN_LOCAL_AGENT=off from the start)',
      { hasCredential: false, connected: false, lastSeenAt: null, unmanaged: true },
      'unmanaged',
    ],
    [
      'unmanaged, its agent gone (turned off after it ran)',
      { hasCredential: true, connected: false, lastSeenAt: ago(1), unmanaged: true },
      'unmanaged',
    ],
    [
      'unmanaged, connected left true by a crashed controller',
      { hasCredential: true, connected: true, lastSeenAt: ago(31), unmanaged: true },
      'unmanaged',
    ],
    [
      'unmanaged here, but an agent holding its credential is linked (another controller runs it)',
      { hasCredential: true, connected: true, lastSeenAt: ago(5), unmanaged: true },
      'connected',
    ],
  ] as const)('%s: %s', (_, facts, state) => {
    expect(agentState(facts, now)).toBe(state);
  });
});

describe('isUnmanaged', () => {
  test('only the local node, and only with WARREN_LOCAL_AGENT=off', () => {
    expect(isUnmanaged({ isLocal: true }, { localAgent: false })).toBe(true);
    expect(isUnmanaged({ isLocal: true }, { localAgent: true })).toBe(false);
    expect(isUnmanaged({ isLocal: false }, { localAgent: false })).toBe(false);
  });
});
