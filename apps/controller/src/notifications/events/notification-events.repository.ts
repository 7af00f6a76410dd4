import { Inject, Injectable } from '@nestjs/common';
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import type { NotificationEvent } from '#libs/contracts/notification-events.js';
import type { NotificationInput } from './notification-input.js';

interface EventRow {
  id: string;
  kind: NotificationEvent['kind'];
  subject_type: NotificationEvent['subject']['type'];
  subject_id: string;
  subject_name: string;
  owner_id: string | null;
  telegram_id: string | null;
  details: NotificationEvent['details'];
  occurred_at: Date | string;
}

const COLUMNS = 'id, kind, subject_type, subject_id, subject_name, owner_id, telegram_id, details, occurred_at';

function toEvent(row: EventRow): NotificationEvent {
  return {
    id: row.id,
    kind: row.kind,
    occurredAt: new Date(row.occurred_at).toISOString(),
    subject: { type: row.subject_type, id: row.subject_id, name: row.subject_name },
    ownerId: row.owner_id,
    telegramId: row.telegram_id,
    details: row.details ?? {},
  };
}

/** The notifications outbox (notification-event.entity.ts). */
@Injectable()
export class NotificationEventsRepository {
  constructor(@Inject(MikroORM) private readonly orm: MikroORM) {}

  /**
   * Records crossings, each at most once ever: a crossing already recorded (the same report
   * again, a replayed batch, a second controller) is skipped. Returns how many were new.
   */
  async insert(em: EntityManager | null, inputs: readonly NotificationInput[]): Promise<number> {
    if (inputs.length === 0) return 0;
    const rows = inputs.map((input) => ({
      crossing: input.crossing.slice(0, 200),
      kind: input.kind,
      subject_type: input.subject.type,
      subject_id: input.subject.id,
      subject_name: input.subject.name.slice(0, 200),
      owner_id: input.ownerId ?? null,
      telegram_id: input.telegramId === null || input.telegramId === undefined ? null : String(input.telegramId),
      details: input.details ?? {},
      occurred_at: (input.occurredAt ?? new Date()).toISOString(),
    }));
    const inserted = await (em ?? this.orm.em.fork()).execute<{ id: string }[]>(
      `insert into notification_events
         (id, crossing, kind, subject_type, subject_id, subject_name, owner_id, telegram_id, details, occurred_at)
       select gen_random_uuid(), r.crossing, r.kind, r.subject_type, r.subject_id, r.subject_name, r.owner_id,
              r.telegram_id, coalesce(r.details, '{}'::jsonb), r.occurred_at
         from jsonb_to_recordset(?::jsonb) as r(crossing text, kind text, subject_type text, subject_id text,
              subject_name text, owner_id uuid, telegram_id text, details jsonb, occurred_at timestamptz)
       on conflict (crossing) do nothing
       returning id`,
      [JSON.stringify(rows)],
    );
    return inserted.length;
  }

  /**
   * Hands the oldest undispatched events to `dispatch` and stamps them dispatched, in one
   * transaction holding their rows (skip locked: two controllers never take the same ones). If
   * the process dies after `dispatch` and before the commit, they are handed again later: the
   * dispatch is idempotent (job ids per event and channel).
   */
  async dispatchPending(limit: number, dispatch: (events: NotificationEvent[]) => Promise<void>): Promise<number> {
    return this.orm.em.fork().transactional(async (em) => {
      const rows = await em.execute<EventRow[]>(
        `select ${COLUMNS} from notification_events where dispatched_at is null
          order by occurred_at limit ? for update skip locked`,
        [limit],
      );
      if (rows.length === 0) return 0;
      await dispatch(rows.map(toEvent));
      await em.execute(`update notification_events set dispatched_at = now() where id = any(array[?]::uuid[])`, [
        rows.map((row) => row.id),
      ]);
      return rows.length;
    });
  }

  /** A test event (POST /api/settings/notify/test): stored already dispatched, since the test hands it over itself. */
  async insertTest(input: NotificationInput): Promise<NotificationEvent> {
    const [row] = await this.orm.em.fork().execute<EventRow[]>(
      `insert into notification_events
         (id, crossing, kind, subject_type, subject_id, subject_name, details, occurred_at, dispatched_at)
       values (gen_random_uuid(), ?, ?, ?, ?, ?, ?::jsonb, now(), now())
       returning ${COLUMNS}`,
      [
        input.crossing,
        input.kind,
        input.subject.type,
        input.subject.id,
        input.subject.name,
        JSON.stringify(input.details ?? {}),
      ],
    );
    return toEvent(row);
  }

  async find(id: string): Promise<NotificationEvent | null> {
    const [row] = await this.orm.em
      .fork()
      .execute<EventRow[]>(`select ${COLUMNS} from notification_events where id = ?`, [id]);
    return row ? toEvent(row) : null;
  }

  /**
   * Drops events that happened before the cut-off and were handed to the channels (their
   * crossings can no longer repeat: periods moved on), a batch at a time so a first run over a
   * long outbox holds no huge delete. Returns how many went.
   */
  async prune(before: Date, batch = 5000): Promise<number> {
    const em = this.orm.em.fork();
    let total = 0;
    for (;;) {
      const deleted = await em.execute<{ id: string }[]>(
        `delete from notification_events where id in
           (select id from notification_events where occurred_at < ? and dispatched_at is not null limit ?)
         returning id`,
        [before, batch],
      );
      total += deleted.length;
      if (deleted.length < batch) return total;
    }
  }
}
