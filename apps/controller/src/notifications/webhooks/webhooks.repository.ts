import { Inject, Injectable } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import type { NotificationEventKind } from '#libs/contracts/notification-events.js';
import { WebhookDelivery } from './webhook-delivery.entity.js';
import { WebhookEndpoint } from './webhook-endpoint.entity.js';

/** How many attempts the delivery log keeps per endpoint. */
export const DELIVERY_LOG_SIZE = 50;

export interface EndpointRecord {
  id: string;
  name: string;
  url: string;
  secret: string;
  events: NotificationEventKind[];
  enabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface DeliveryRecord {
  id: string;
  eventId: string;
  kind: NotificationEventKind;
  attempt: number;
  status: number | null;
  latencyMs: number;
  error: string | null;
  at: Date;
}

const toRecord = (row: WebhookEndpoint): EndpointRecord => ({
  id: row.id,
  name: row.name,
  url: row.url,
  secret: row.secret,
  events: row.events as NotificationEventKind[],
  enabled: row.enabled,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

@Injectable()
export class WebhooksRepository {
  constructor(@Inject(MikroORM) private readonly orm: MikroORM) {}

  async list(): Promise<EndpointRecord[]> {
    const rows = await this.orm.em.fork().find(WebhookEndpoint, {}, { orderBy: { createdAt: 'asc', id: 'asc' } });
    return rows.map(toRecord);
  }

  async find(id: string): Promise<EndpointRecord | null> {
    const row = await this.orm.em.fork().findOne(WebhookEndpoint, { id });
    return row ? toRecord(row) : null;
  }

  async create(
    values: Pick<EndpointRecord, 'name' | 'url' | 'secret' | 'events' | 'enabled'>,
  ): Promise<EndpointRecord> {
    const em = this.orm.em.fork();
    const row = em.create(WebhookEndpoint, values);
    await em.flush();
    return toRecord(row);
  }

  async update(
    id: string,
    changes: Partial<Pick<EndpointRecord, 'name' | 'url' | 'events' | 'enabled'>>,
  ): Promise<EndpointRecord | null> {
    const em = this.orm.em.fork();
    const row = await em.findOne(WebhookEndpoint, { id });
    if (!row) return null;
    em.assign(row, changes);
    await em.flush();
    return toRecord(row);
  }

  async remove(id: string): Promise<boolean> {
    const deleted = await this.orm.em.fork().nativeDelete(WebhookEndpoint, { id });
    return deleted > 0;
  }

  /** Adds an attempt and drops what falls past the newest DELIVERY_LOG_SIZE of its endpoint. */
  async logAttempt(endpointId: string, attempt: Omit<DeliveryRecord, 'id'>): Promise<void> {
    await this.orm.em.fork().transactional(async (em) => {
      em.create(WebhookDelivery, { ...attempt, endpoint: endpointId });
      await em.flush();
      await em.execute(
        `delete from webhook_deliveries where endpoint_id = ? and id not in
           (select id from webhook_deliveries where endpoint_id = ? order by at desc, id desc limit ?)`,
        [endpointId, endpointId, DELIVERY_LOG_SIZE],
      );
    });
  }

  /**
   * Attempts older than `before`, and any past the newest DELIVERY_LOG_SIZE of their endpoint
   * (logAttempt trims its own endpoint; this catches what a crash between the two left).
   */
  async pruneDeliveries(before: Date): Promise<number> {
    const deleted = await this.orm.em.fork().execute<{ id: string }[]>(
      `delete from webhook_deliveries where at < ? or id in
         (select id from (select id, row_number() over (partition by endpoint_id order by at desc, id desc) as n
                            from webhook_deliveries) ranked where n > ?)
       returning id`,
      [before, DELIVERY_LOG_SIZE],
    );
    return deleted.length;
  }

  async deliveries(endpointId: string): Promise<DeliveryRecord[]> {
    const rows = await this.orm.em
      .fork()
      .find(
        WebhookDelivery,
        { endpoint: endpointId },
        { orderBy: { at: 'desc', id: 'desc' }, limit: DELIVERY_LOG_SIZE },
      );
    return rows.map((row) => ({
      id: row.id,
      eventId: row.eventId,
      kind: row.kind as NotificationEventKind,
      attempt: row.attempt,
      status: row.status ?? null,
      latencyMs: row.latencyMs,
      error: row.error ?? null,
      at: row.at,
    }));
  }
}
