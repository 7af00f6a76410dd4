import { Body, Controller, Inject, Param, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CLIENT_MANAGERS, MANAGERS, SIGNED_IN } from '#libs/contracts/user-roles.js';
import { CallerScope, type OperatorScope } from '../auth/operator-scope.js';
import type { WarrenConfig } from '../config/config.js';
import { IdPipe } from '../http/id.js';
import { requestOrigin } from '../http/request-origin.js';
import { Route } from '../http/route.decorator.js';
import { WARREN_CONFIG } from '../runtime.js';
import {
  CreateDownloadLinkDto,
  DownloadLinkDto,
  SubscriptionLinkDto,
  SubscriptionPreviewDto,
  SubscriptionSettingsDto,
} from './dto/subscription.dto.js';
import { PAGE_SECURITY_HEADERS } from './subscription-page.js';
import type { SubscriptionFormat, SubscriptionSettings } from './subscription-settings.js';
import { SubscriptionsService } from './subscriptions.service.js';

/** The validated body as settings (IsIn checked every format). */
function settingsOf(body: SubscriptionSettingsDto): SubscriptionSettings {
  return {
    title: body.title,
    supportContact: body.supportContact,
    formats: body.formats as SubscriptionFormat[],
    language: body.language,
  };
}

/**
 * Subscription links (docs/subscriptions.md). A link opens every config of a client, private
 * keys included, so reading, rotating and minting links is for the roles that may read configs.
 */
@Controller()
export class SubscriptionsController {
  constructor(
    private readonly subscriptions: SubscriptionsService,
    @Inject(WARREN_CONFIG) private readonly config: WarrenConfig,
  ) {}

  @Route({
    method: 'GET',
    path: 'subscription',
    group: 'subscriptions',
    roles: SIGNED_IN,
    summary: "The customer page's settings: title, support contact, formats offered to apps, language",
    response: SubscriptionSettingsDto,
  })
  settings() {
    return this.subscriptions.settings();
  }

  @Route({
    method: 'PUT',
    path: 'subscription',
    group: 'subscriptions',
    roles: MANAGERS,
    summary: "Replace the customer page's settings",
    example: {
      title: 'Acme VPN',
      supportContact: 'https://t.me/acme_support',
      formats: ['conf', 'zip'],
      language: 'fa',
    },
    response: SubscriptionSettingsDto,
  })
  update(@Body() body: SubscriptionSettingsDto) {
    return this.subscriptions.updateSettings(settingsOf(body));
  }

  @Route({
    method: 'POST',
    path: 'subscription/preview',
    group: 'subscriptions',
    roles: MANAGERS,
    summary: 'The customer page (HTML) as these settings would make it, for a sample customer; nothing is saved',
    example: { title: 'Acme VPN', supportContact: '', formats: ['conf'], language: 'fa' },
    status: 200,
    response: { text: 'text/html' },
  })
  async preview(@Body() body: SubscriptionPreviewDto, @Res({ passthrough: true }) reply: FastifyReply) {
    const html = await this.subscriptions.preview(settingsOf(body), body.previewLanguage);
    reply.headers(PAGE_SECURITY_HEADERS).header('content-type', 'text/html; charset=utf-8');
    return html;
  }

  @Route({
    method: 'GET',
    path: 'clients/:id/subscription',
    group: 'subscriptions',
    roles: CLIENT_MANAGERS,
    summary:
      "The client's subscription link (made the first time it is asked for): its page and one URL per app format",
    response: SubscriptionLinkDto,
  })
  link(
    @Param('id', new IdPipe('client')) id: string,
    @Req() request: FastifyRequest,
    @CallerScope() scope: OperatorScope,
  ) {
    return this.subscriptions.link(id, requestOrigin(request, this.config.publicUrl), scope);
  }

  @Route({
    method: 'POST',
    path: 'clients/:id/subscription/rotate',
    group: 'subscriptions',
    roles: CLIENT_MANAGERS,
    summary:
      "A new subscription link for the client; the old one, and the client's unspent one-time links, answer 404 from now on",
    status: 200,
    response: SubscriptionLinkDto,
  })
  rotate(
    @Param('id', new IdPipe('client')) id: string,
    @Req() request: FastifyRequest,
    @CallerScope() scope: OperatorScope,
  ) {
    return this.subscriptions.rotate(id, requestOrigin(request, this.config.publicUrl), scope);
  }

  @Route({
    method: 'POST',
    path: 'devices/:id/profile/link',
    group: 'subscriptions',
    roles: CLIENT_MANAGERS,
    summary:
      'A one-time download link for one config of the device (to send over chat): a page whose button (`?download=1`) hands the config out once, for `minutes` (default 30)',
    example: { minutes: 30 },
    status: 201,
    response: DownloadLinkDto,
  })
  downloadLink(
    @Param('id', new IdPipe('device')) id: string,
    @Body() body: CreateDownloadLinkDto,
    @Req() request: FastifyRequest,
    @CallerScope() scope: OperatorScope,
  ) {
    return this.subscriptions.createDownloadLink(id, body, requestOrigin(request, this.config.publicUrl), scope);
  }
}
