import { Body, Controller, Param, Query } from '@nestjs/common';
import { CLIENT_MANAGERS, CLIENT_READERS } from '#libs/contracts/user-roles.js';
import { CallerScope, type OperatorScope } from '../auth/operator-scope.js';
import { IdPipe } from '../http/id.js';
import { Route } from '../http/route.decorator.js';
import { ClientsService } from './clients.service.js';
import { CreateClientDto, ListClientsQuery, UpdateClientDto } from './dto/client.dto.js';
import { ClientDetailDto, ClientPageDto, ClientResetDto } from './dto/client.response.js';
import { DeletedDto } from '../http/api-fields.js';
import { UsageQueryDto, UsageSeriesDto } from './dto/usage.dto.js';
import { DEFAULT_USAGE_RANGE, USAGE_RANGE_NAMES } from './usage-tiers.js';

const CREATE_EXAMPLE = {
  name: 'alice',
  note: 'family plan',
  groups: ['family'],
  telegramId: 5000000000,
  quotaBytes: 107374182400,
  expiresAt: '2027-01-01T00:00:00Z',
  deviceLimit: 3,
  interfaceIds: ['00000000-0000-4000-8000-000000000000'],
  deviceNames: ['phone', 'laptop'],
  resetCycle: 'monthly',
};

/**
 * Clients (customers): quota, expiry, device limit, the interfaces they are attached to. Every
 * route passes the caller's scope: a reseller reaches their own clients only (auth/operator-scope.ts).
 */
@Controller()
export class ClientsController {
  constructor(private readonly clients: ClientsService) {}

  @Route({
    method: 'GET',
    path: 'clients',
    group: 'clients',
    roles: CLIENT_READERS,
    summary: 'List clients, a page at a time: {items, total, page, perPage, nextCursor?}',
    query: {
      search: 'case-insensitive text in name or note; all digits also matches telegramId exactly',
      status: 'active | disabled | expired | exhausted',
      group: 'clients whose groups include this one',
      interfaceId: 'clients attached to this interface',
      page: 'page number, from 1 (default 1)',
      cursor:
        "instead of page: the previous answer's nextCursor, for the page after it (any depth at the cost of the first)",
      perPage: 'page size, 1..200 (default 25); out of range is a 400',
      sort: 'newest (default) | oldest | name | traffic | remaining | expiry',
    },
    response: ClientPageDto,
  })
  list(@Query() query: ListClientsQuery, @CallerScope() scope: OperatorScope) {
    return this.clients.list(query, scope);
  }

  @Route({
    method: 'POST',
    path: 'clients',
    group: 'clients',
    roles: CLIENT_MANAGERS,
    summary:
      'Create a client with its first devices: one account (key pair, preshared key, address) per device per interface',
    example: CREATE_EXAMPLE,
    status: 201,
    response: ClientDetailDto,
    errors: [404, 409],
    // One transaction makes the client: its entry is written in it (docs/audit.md, "One write").
    audit: { inChangeTransaction: true },
  })
  create(@Body() body: CreateClientDto, @CallerScope() scope: OperatorScope) {
    return this.clients.create(body, scope);
  }

  @Route({
    method: 'GET',
    path: 'clients/:id',
    group: 'clients',
    roles: CLIENT_READERS,
    summary: 'One client with its devices and their accounts (public keys only)',
    response: ClientDetailDto,
  })
  get(@Param('id', new IdPipe('client')) id: string, @CallerScope() scope: OperatorScope) {
    return this.clients.get(id, scope);
  }

  @Route({
    method: 'GET',
    path: 'clients/:id/usage',
    group: 'clients',
    roles: CLIENT_READERS,
    summary: "The client's traffic over a range: bytes up and down per point (5-minute, hourly or daily history)",
    query: { range: `${USAGE_RANGE_NAMES.join(' | ')} (default ${DEFAULT_USAGE_RANGE})` },
    response: UsageSeriesDto,
  })
  usage(
    @Param('id', new IdPipe('client')) id: string,
    @Query() query: UsageQueryDto,
    @CallerScope() scope: OperatorScope,
  ) {
    return this.clients.usage(id, query.range ?? DEFAULT_USAGE_RANGE, scope);
  }

  @Route({
    method: 'PATCH',
    path: 'clients/:id',
    group: 'clients',
    roles: CLIENT_MANAGERS,
    summary: 'Change a client; quota, expiry and enabled recompute its status, interfaceIds re-provisions its devices',
    example: { quotaBytes: 214748364800, expiresAt: null, enabled: true },
    response: ClientDetailDto,
    errors: [409],
    audit: { inChangeTransaction: true },
  })
  update(
    @Param('id', new IdPipe('client')) id: string,
    @Body() body: UpdateClientDto,
    @CallerScope() scope: OperatorScope,
  ) {
    return this.clients.update(id, body, scope);
  }

  @Route({
    method: 'DELETE',
    path: 'clients/:id',
    group: 'clients',
    roles: CLIENT_MANAGERS,
    summary: 'Delete a client with its devices and accounts',
    response: DeletedDto,
    audit: { inChangeTransaction: true },
  })
  remove(@Param('id', new IdPipe('client')) id: string, @CallerScope() scope: OperatorScope) {
    return this.clients.remove(id, scope);
  }

  @Route({
    method: 'POST',
    path: 'clients/:id/reset',
    group: 'clients',
    roles: CLIENT_MANAGERS,
    summary: "Reset the client's traffic to zero (revives an exhausted client); returns the counters before the reset",
    response: ClientResetDto,
    audit: { inChangeTransaction: true },
  })
  reset(@Param('id', new IdPipe('client')) id: string, @CallerScope() scope: OperatorScope) {
    return this.clients.reset(id, scope);
  }
}
