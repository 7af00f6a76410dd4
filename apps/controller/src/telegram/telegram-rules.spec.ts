import type { NotificationEvent } from '#libs/contracts/notification-events.js';
import { hears } from './telegram-channel.js';
import { storedTelegramSettings, DEFAULT_TELEGRAM_SETTINGS } from './telegram-settings.js';
import { languageOf } from './telegram-text.js';
import { parseCommand } from './telegram-updates.js';

const event = (over: Partial<NotificationEvent>): NotificationEvent => ({
  id: 'e1',
  kind: 'client.quota-80',
  occurredAt: '2026-11-26T00:00:00Z',
  subject: { type: 'client', id: 'c1', name: 'alice' },
  ownerId: null,
  telegramId: null,
  details: {},
  ...over,
});
const op = (id: string, role: 'owner' | 'admin' | 'reseller' | 'viewer') => ({ id, username: id, role, enabled: true });

describe('who hears an event', () => {
  it('a reseller hears of their own clients only', () => {
    expect(hears(op('r1', 'reseller'), event({ ownerId: 'r1' }))).toBe(true);
    expect(hears(op('r1', 'reseller'), event({ ownerId: 'r2' }))).toBe(false);
    expect(
      hears(op('r1', 'reseller'), event({ kind: 'node.offline', subject: { type: 'node', id: 'n', name: 'n' } })),
    ).toBe(false);
  });

  it('sign-in events reach the user concerned and owners', () => {
    const signIn = event({ kind: 'auth.new-address', subject: { type: 'admin', id: 'a1', name: 'ann' } });
    expect(
      [op('a1', 'admin'), op('a2', 'admin'), op('o', 'owner'), op('v', 'viewer')].map((o) => hears(o, signIn)),
    ).toEqual([true, false, true, false]);
  });
});

describe('commands and languages', () => {
  it('reads /command@bot arguments', () => {
    expect(parseCommand('/extend@warren_bot  alice smith 30 ')).toEqual({ command: 'extend', args: 'alice smith 30' });
    expect(parseCommand('/START')).toEqual({ command: 'start', args: '' });
    expect(parseCommand('hello')).toBeNull();
  });

  it('takes fa-IR as Persian and anything unknown as the default', () => {
    expect([languageOf('fa-IR', 'en'), languageOf('de', 'fa'), languageOf(undefined, 'en')]).toEqual([
      'fa',
      'fa',
      'en',
    ]);
  });
});

describe('stored settings', () => {
  it('read field by field: a damaged field is its default, the rest stand', () => {
    const read = storedTelegramSettings({
      enabled: true,
      token: 'not a token',
      customerLanguage: 'fa',
      backupMaxBytes: -1,
    });
    expect(read).toEqual({ ...DEFAULT_TELEGRAM_SETTINGS, enabled: true, customerLanguage: 'fa' });
    expect(storedTelegramSettings(undefined)).toEqual(DEFAULT_TELEGRAM_SETTINGS);
  });
});
