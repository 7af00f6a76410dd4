import { Injectable } from '@nestjs/common';
import { NotificationEvents } from '../notifications/events/notification-events.js';

type Account = { userId: string; username: string };
/** Who made a credential change: the user, the owner, or someone at the host (`warren admin …`). */
export type ChangedBy = 'self' | 'owner' | 'command-line';

/**
 * What sign-in and credential changes tell the operators (docs/notifications.md). Recorded after
 * the change commits (the repositories are shared with the command line, which records through
 * this class too, outside Nest): a process killed in between loses that one notice, never
 * repeats it.
 */
@Injectable()
export class AuthNotices {
  constructor(private readonly events: NotificationEvents) {}

  /**
   * A sign-in from an address this account never signed in from: the crossing is the account and
   * the address, so each pair is told once, ever (as long as the outbox keeps it).
   */
  signedIn(account: Account, address: string): Promise<void> {
    return this.events.record(null, {
      kind: 'auth.new-address',
      crossing: `auth.new-address:${account.userId}:${address}`,
      subject: { type: 'admin', id: account.userId, name: account.username },
      details: { address },
    });
  }

  passwordChanged(account: Account, by: ChangedBy): Promise<void> {
    const at = new Date();
    return this.events.record(null, {
      kind: 'auth.password-changed',
      crossing: `auth.password-changed:${account.userId}:${at.getTime()}`,
      subject: { type: 'admin', id: account.userId, name: account.username },
      details: { by },
      occurredAt: at,
    });
  }

  twoFactorChanged(account: Account, enabled: boolean, by: ChangedBy): Promise<void> {
    const at = new Date();
    return this.events.record(null, {
      kind: 'auth.two-factor-changed',
      crossing: `auth.two-factor-changed:${account.userId}:${enabled ? 'on' : 'off'}:${at.getTime()}`,
      subject: { type: 'admin', id: account.userId, name: account.username },
      details: { enabled, by },
      occurredAt: at,
    });
  }
}
