import { agentState } from './agent-state.js';

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
  ] as const)('%s: %s', (_, facts, state) => {
    expect(agentState(facts, now)).toBe(state);
  });
});
