import { Body, Controller, Param, Query } from '@nestjs/common';
import { CLIENT_MANAGERS, CLIENT_READERS } from '#libs/contracts/user-roles.js';
import { CurrentPrincipal } from '../../auth/current-principal.decorator.js';
import type { Principal } from '../../auth/principal.js';
import { Route } from '../../http/route.decorator.js';
import { ClientListRepository } from '../client-list.repository.js';
import {
  AdjustClientsDto,
  BulkClientsDto,
  ClientIdsQuery,
  ClientInterfacesDto,
  ClientSelectionDto,
  ExtendClientsDto,
  PurgeClientsDto,
} from '../dto/bulk.dto.js';
import { BulkJobDto, ClientIdsDto } from '../dto/bulk.response.js';
import { BulkJobsService } from './bulk-jobs.service.js';

const SELECTION = { filter: { status: 'expired', group: 'trial' } };
const JOB =
  "one job: 202 with it (follow GET /api/jobs/{id}); a bad selection is refused before anything changes; a reseller's reaches their own clients, within their ceilings";
const DAY_MS = 86_400_000;

/** Bulk actions on clients (W-UI's paths): each takes `ids` or a `filter` and runs as one job. */
@Controller()
export class BulkController {
  constructor(
    private readonly bulk: BulkJobsService,
    private readonly listing: ClientListRepository,
  ) {}

  @Route({
    method: 'GET',
    path: 'clients/ids',
    group: 'clients',
    roles: CLIENT_READERS,
    summary: 'The ids of every client a filter selects (the list query, all pages), for a bulk action by ids',
    query: {
      search: 'as GET /api/clients',
      status: 'as GET /api/clients',
      group: 'as GET /api/clients',
      interfaceId: 'as GET /api/clients',
    },
    response: ClientIdsDto,
  })
  async ids(@CurrentPrincipal() principal: Principal, @Query() query: ClientIdsQuery) {
    const ids = await this.listing.ids(this.bulk.filterFromQuery(principal, query));
    return { ids, total: ids.length };
  }

  @Route({
    method: 'POST',
    path: 'clients/bulk',
    group: 'clients',
    roles: CLIENT_MANAGERS,
    summary: `Enable, disable or delete the selected clients: ${JOB}`,
    example: { ...SELECTION, action: 'disable' },
    status: 202,
    response: BulkJobDto,
    errors: [404, 503],
  })
  simple(@CurrentPrincipal() principal: Principal, @Body() body: BulkClientsDto) {
    return this.bulk.start(principal, { action: body.action }, body);
  }

  @Route({
    method: 'POST',
    path: 'clients/adjust',
    group: 'clients',
    roles: CLIENT_MANAGERS,
    summary: `Raise or lower the quota of the selected clients by deltaBytes (unlimited ones stay unlimited): ${JOB}`,
    example: { ids: ['00000000-0000-4000-8000-000000000000'], deltaBytes: 10737418240 },
    status: 202,
    response: BulkJobDto,
    errors: [404, 503],
  })
  adjust(@CurrentPrincipal() principal: Principal, @Body() body: AdjustClientsDto) {
    return this.bulk.start(principal, { action: 'adjust', deltaBytes: body.deltaBytes }, body);
  }

  @Route({
    method: 'POST',
    path: 'clients/extend',
    group: 'clients',
    roles: CLIENT_MANAGERS,
    summary: `Extend the expiry of the selected clients by days, from their expiry or from now: ${JOB}`,
    example: { ...SELECTION, days: 30, from: 'now' },
    status: 202,
    response: BulkJobDto,
    errors: [404, 503],
  })
  extend(@CurrentPrincipal() principal: Principal, @Body() body: ExtendClientsDto) {
    return this.bulk.start(principal, { action: 'extend', days: body.days, from: body.from ?? 'expiry' }, body);
  }

  @Route({
    method: 'POST',
    path: 'clients/reset-all',
    group: 'clients',
    roles: CLIENT_MANAGERS,
    summary: `Reset the traffic of the selected clients (exhausted ones come back): ${JOB}`,
    example: { filter: { group: 'monthly' } },
    status: 202,
    response: BulkJobDto,
    errors: [404, 503],
  })
  resetAll(@CurrentPrincipal() principal: Principal, @Body() body: ClientSelectionDto) {
    return this.bulk.start(principal, { action: 'reset' }, body);
  }

  @Route({
    method: 'POST',
    path: 'clients/purge',
    group: 'clients',
    roles: CLIENT_MANAGERS,
    summary: `Delete the selected clients that have been expired, exhausted or disabled for more than olderThanDays: ${JOB}`,
    example: { filter: {}, statuses: ['expired', 'disabled'], olderThanDays: 30 },
    status: 202,
    response: BulkJobDto,
    errors: [404, 503],
  })
  purge(@CurrentPrincipal() principal: Principal, @Body() body: PurgeClientsDto) {
    const before = new Date(Date.now() - body.olderThanDays * DAY_MS);
    const statuses = body.statuses ?? ['expired', 'exhausted', 'disabled'];
    return this.bulk.start(principal, { action: 'purge' }, body, { statusSince: { statuses, before } });
  }

  @Route({
    method: 'POST',
    path: 'clients/servers/attach',
    group: 'clients',
    roles: CLIENT_MANAGERS,
    summary: `Attach the selected clients to interfaces: every device gets an account on each new one: ${JOB}`,
    example: { ...SELECTION, interfaceIds: ['00000000-0000-4000-8000-000000000000'] },
    status: 202,
    response: BulkJobDto,
    errors: [404, 409, 503],
  })
  attach(@CurrentPrincipal() principal: Principal, @Body() body: ClientInterfacesDto) {
    return this.bulk.start(principal, { action: 'attach', interfaceIds: body.interfaceIds }, body);
  }

  @Route({
    method: 'POST',
    path: 'clients/servers/detach',
    group: 'clients',
    roles: CLIENT_MANAGERS,
    summary: `Detach the selected clients from interfaces (their accounts there go); none may be left without one: ${JOB}`,
    example: { ...SELECTION, interfaceIds: ['00000000-0000-4000-8000-000000000000'] },
    status: 202,
    response: BulkJobDto,
    errors: [404, 409, 503],
  })
  detach(@CurrentPrincipal() principal: Principal, @Body() body: ClientInterfacesDto) {
    return this.bulk.start(principal, { action: 'detach', interfaceIds: body.interfaceIds }, body);
  }

  @Route({
    method: 'GET',
    path: 'jobs/:id',
    group: 'clients',
    roles: CLIENT_MANAGERS,
    summary:
      'A bulk job: state (waiting, active, completed, failed), progress (done of total, changed) and error; to whoever started it, or an owner or admin',
    response: BulkJobDto,
    errors: [404, 503],
  })
  job(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.bulk.get(id, principal);
  }
}
