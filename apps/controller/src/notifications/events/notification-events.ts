import { Injectable } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import { NotificationEventsRepository } from './notification-events.repository.js';
import type { NotificationInput } from './notification-input.js';

type Waker = () => void;

/**
 * Where every domain records what it has to tell (docs/notifications.md). Given the transaction
 * of the state change, the event commits or rolls back with it (the outbox); without one it is
 * written on its own. Recording never sends: the dispatcher does, after the commit.
 */
@Injectable()
export class NotificationEvents {
  private waker?: Waker;

  constructor(private readonly events: NotificationEventsRepository) {}

  async record(em: EntityManager | null, ...inputs: NotificationInput[]): Promise<void> {
    const added = await this.events.insert(em, inputs);
    if (added > 0 && this.waker) {
      // Inside a transaction the rows are not visible yet: wake the dispatcher once it may be.
      const wake = this.waker;
      setTimeout(wake, em ? 50 : 0).unref();
    }
  }

  /** The dispatcher asks to be woken when something was recorded (it also polls). */
  onRecorded(waker: Waker): void {
    this.waker = waker;
  }
}
