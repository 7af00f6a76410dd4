import type { MikroORM } from '@mikro-orm/postgresql';
import { AuthNotices } from '../auth/auth-notices.js';
import { NotificationEvents } from '../notifications/events/notification-events.js';
import { NotificationEventsRepository } from '../notifications/events/notification-events.repository.js';

/**
 * The notices a command at the host records, as the API's routes record theirs: the rows go to
 * the outbox, and a running panel's dispatcher (which polls it) delivers them. With no panel
 * running they wait in the outbox for the next start.
 */
export const cliNotices = (orm: MikroORM) =>
  new AuthNotices(new NotificationEvents(new NotificationEventsRepository(orm)));
