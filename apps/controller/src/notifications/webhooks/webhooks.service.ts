import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { assertPublicTarget } from '../../common/private-targets.js';
import { badRequest, notFound } from '../../http/api-error.js';
import { SettingsService } from '../../settings/settings.service.js';
import type { CreateWebhookDto, UpdateWebhookDto } from './dto/webhook.dto.js';
import type { CreatedWebhookDto, WebhookDeliveryDto, WebhookDto } from './dto/webhook.response.js';
import { WebhooksRepository, type EndpointRecord } from './webhooks.repository.js';

const view = (endpoint: EndpointRecord): WebhookDto => ({
  id: endpoint.id,
  name: endpoint.name,
  url: endpoint.url,
  events: endpoint.events,
  enabled: endpoint.enabled,
  createdAt: endpoint.createdAt.toISOString(),
  updatedAt: endpoint.updatedAt.toISOString(),
});

/** Webhook endpoints: their targets' rules and their secrets (docs/notifications.md, "Webhooks"). */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly endpoints: WebhooksRepository,
    private readonly settings: SettingsService,
  ) {}

  async list(): Promise<WebhookDto[]> {
    return (await this.endpoints.list()).map(view);
  }

  async create(body: CreateWebhookDto): Promise<CreatedWebhookDto> {
    await this.assertUsableUrl(body.url);
    const secret = `whsec_${randomBytes(32).toString('base64url')}`;
    const endpoint = await this.endpoints.create({
      name: body.name,
      url: body.url,
      secret,
      events: body.events ?? [],
      enabled: body.enabled ?? true,
    });
    return { ...view(endpoint), secret };
  }

  async update(id: string, body: UpdateWebhookDto): Promise<WebhookDto> {
    if (body.url !== undefined) await this.assertUsableUrl(body.url);
    const endpoint = await this.endpoints.update(id, {
      ...(body.name !== undefined && { name: body.name }),
      ...(body.url !== undefined && { url: body.url }),
      ...(body.events !== undefined && { events: body.events }),
      ...(body.enabled !== undefined && { enabled: body.enabled }),
    });
    if (!endpoint) throw notFound('webhook not found', 'id');
    return view(endpoint);
  }

  async remove(id: string): Promise<{ id: string; deleted: true }> {
    if (!(await this.endpoints.remove(id))) throw notFound('webhook not found', 'id');
    return { id, deleted: true };
  }

  async deliveries(id: string): Promise<WebhookDeliveryDto[]> {
    if (!(await this.endpoints.find(id))) throw notFound('webhook not found', 'id');
    return (await this.endpoints.deliveries(id)).map((row) => ({
      ...row,
      ok: row.status !== null && row.status >= 200 && row.status < 300,
      at: row.at.toISOString(),
    }));
  }

  /**
   * An endpoint is a request the panel makes on a manager's behalf, as a probe is: the same
   * target rules (no credentials in the URL, no private or own address unless allowed). Checked
   * again at every send, on the address then resolved (webhook-sender.ts).
   */
  private async assertUsableUrl(text: string): Promise<void> {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw badRequest('url must be an http or https URL', 'url');
    }
    if (url.username || url.password) throw badRequest('url must not carry a user name or password', 'url');
    if (!(await this.settings.get()).allowPrivateTargets)
      await assertPublicTarget(url.hostname.replace(/^\[(.*)\]$/, '$1'), 'url', 'webhooks');
  }
}
