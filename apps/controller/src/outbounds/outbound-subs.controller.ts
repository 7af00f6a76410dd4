import { Body, Controller, Param, Query } from '@nestjs/common';
import { MANAGERS, SIGNED_IN } from '#libs/contracts/user-roles.js';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import type { Principal } from '../auth/principal.js';
import { DeletedDto } from '../http/api-fields.js';
import { IdPipe } from '../http/id.js';
import { Route } from '../http/route.decorator.js';
import {
  CreateOutboundSubDto,
  OutboundSubDto,
  OutboundSubOrderDto,
  OutboundSubPreviewDto,
  OutboundSubRefreshDto,
  PreviewOutboundSubDto,
  UpdateOutboundSubDto,
} from './dto/outbound-sub.dto.js';
import { NodeQueryDto } from './dto/outbound.dto.js';
import { OutboundSubsService } from './outbound-subs.service.js';

/** Outbound subscriptions: lists of hops fetched from a URL (docs/outbounds.md, "Subscriptions"). */
@Controller()
export class OutboundSubsController {
  constructor(private readonly subs: OutboundSubsService) {}

  @Route({
    method: 'GET',
    path: 'outbound-subs',
    group: 'outbounds',
    roles: SIGNED_IN,
    summary:
      "List the outbound subscriptions in their order, each with its last fetch and the hops it has; a viewer gets each URL cut to its origin (its path may hold the provider's token)",
    query: { nodeId: "only this node's (default: all)" },
    response: [OutboundSubDto],
    errors: [404],
  })
  list(@Query() query: NodeQueryDto, @CurrentPrincipal() principal: Principal) {
    return this.subs.list(query.nodeId, MANAGERS.includes(principal.role));
  }

  @Route({
    method: 'POST',
    path: 'outbound-subs',
    group: 'outbounds',
    roles: MANAGERS,
    summary:
      'Add a subscription (a URL listing hops as share links) for a node; nothing is fetched until a refresh (asked for, or its schedule within 30 s)',
    example: { name: 'provider', url: 'https://provider.example.invalid/sub/hops.txt', intervalSeconds: 3600 },
    status: 201,
    response: OutboundSubDto,
    errors: [404, 409],
  })
  create(@Body() body: CreateOutboundSubDto) {
    return this.subs.create(body);
  }

  @Route({
    method: 'POST',
    path: 'outbound-subs/order',
    group: 'outbounds',
    roles: MANAGERS,
    summary: 'Set the order of the subscriptions (display and refresh-all order): ids lists every one once',
    example: { ids: ['6f1c2f4e-0d1b-4c55-9a51-6a2b2f0c9e11'] },
    response: [OutboundSubDto],
    errors: [404],
  })
  order(@Body() body: OutboundSubOrderDto) {
    return this.subs.order(body.ids);
  }

  @Route({
    method: 'POST',
    path: 'outbound-subs/preview',
    group: 'outbounds',
    roles: MANAGERS,
    summary:
      'Fetch a list and read it without saving anything: the hops a refresh would make and the lines it would skip; a URL that cannot be fetched is a 400 on url',
    example: { url: 'https://provider.example.invalid/sub/hops.txt' },
    response: OutboundSubPreviewDto,
    audit: false,
  })
  preview(@Body() body: PreviewOutboundSubDto) {
    return this.subs.preview(body.url);
  }

  @Route({
    method: 'POST',
    path: 'outbound-subs/refresh',
    group: 'outbounds',
    roles: MANAGERS,
    summary: 'Refresh every enabled subscription now (a few at a time); a failed fetch is stored as its lastError',
    response: [OutboundSubRefreshDto],
  })
  refreshAll() {
    return this.subs.refreshAll();
  }

  @Route({
    method: 'PATCH',
    path: 'outbound-subs/:id',
    group: 'outbounds',
    roles: MANAGERS,
    summary: 'Change a subscription (name, url, enabled, intervalSeconds); never its node',
    example: { intervalSeconds: 21600 },
    response: OutboundSubDto,
    errors: [409],
  })
  update(@Param('id', new IdPipe('outbound subscription')) id: string, @Body() body: UpdateOutboundSubDto) {
    return this.subs.update(id, body);
  }

  @Route({
    method: 'DELETE',
    path: 'outbound-subs/:id',
    group: 'outbounds',
    roles: MANAGERS,
    summary:
      'Delete a subscription and the hops it made; hops a rule or the default outbound uses stay, as ordinary hops',
    response: DeletedDto,
  })
  remove(@Param('id', new IdPipe('outbound subscription')) id: string) {
    return this.subs.remove(id);
  }

  @Route({
    method: 'POST',
    path: 'outbound-subs/:id/refresh',
    group: 'outbounds',
    roles: MANAGERS,
    summary:
      "Fetch the subscription's list now and bring its hops in line: listed ones updated in place or made, gone ones deleted (kept and flagged while a rule uses them); a failed fetch leaves them and is stored as lastError",
    response: OutboundSubRefreshDto,
  })
  refresh(@Param('id', new IdPipe('outbound subscription')) id: string) {
    return this.subs.refresh(id);
  }
}
