import { Body, Controller, Param } from '@nestjs/common';
import { OWNER_ONLY } from '#libs/contracts/user-roles.js';
import { DeletedDto } from '../../http/api-fields.js';
import { IdPipe } from '../../http/id.js';
import { Route } from '../../http/route.decorator.js';
import { CreateWebhookDto, UpdateWebhookDto } from './dto/webhook.dto.js';
import { CreatedWebhookDto, WebhookDeliveryDto, WebhookDto } from './dto/webhook.response.js';
import { WebhooksService } from './webhooks.service.js';

/**
 * Webhook endpoints (docs/notifications.md). Owner and admins: an endpoint receives every
 * client's events, so a reseller (their own clients only) or a viewer (no secrets) gets none.
 */
@Controller()
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Route({
    method: 'GET',
    path: 'webhooks',
    group: 'settings',
    roles: OWNER_ONLY,
    summary: 'Every webhook endpoint (without its secret)',
    response: [WebhookDto],
  })
  list() {
    return this.webhooks.list();
  }

  @Route({
    method: 'POST',
    path: 'webhooks',
    group: 'settings',
    roles: OWNER_ONLY,
    summary: 'Add a webhook endpoint; the answer carries its signing secret, shown this once',
    example: { name: 'ops', url: 'https://hooks.example.com/warren', events: ['node.offline', 'node.online'] },
    status: 201,
    response: CreatedWebhookDto,
  })
  create(@Body() body: CreateWebhookDto) {
    return this.webhooks.create(body);
  }

  @Route({
    method: 'PATCH',
    path: 'webhooks/:id',
    group: 'settings',
    roles: OWNER_ONLY,
    summary: "Change a webhook endpoint's name, URL, event filter or enabled flag",
    example: { enabled: false },
    response: WebhookDto,
    errors: [404],
  })
  update(@Param('id', new IdPipe('webhook')) id: string, @Body() body: UpdateWebhookDto) {
    return this.webhooks.update(id, body);
  }

  @Route({
    method: 'DELETE',
    path: 'webhooks/:id',
    group: 'settings',
    roles: OWNER_ONLY,
    summary: 'Remove a webhook endpoint and its delivery log',
    response: DeletedDto,
    errors: [404],
  })
  remove(@Param('id', new IdPipe('webhook')) id: string) {
    return this.webhooks.remove(id);
  }

  @Route({
    method: 'GET',
    path: 'webhooks/:id/deliveries',
    group: 'settings',
    roles: OWNER_ONLY,
    summary: "An endpoint's newest delivery attempts (status, latency, error), newest first",
    response: [WebhookDeliveryDto],
    errors: [404],
  })
  deliveries(@Param('id', new IdPipe('webhook')) id: string) {
    return this.webhooks.deliveries(id);
  }
}
