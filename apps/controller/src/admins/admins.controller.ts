import { Body, Controller, Param } from '@nestjs/common';
import { OWNER_ONLY } from '#libs/contracts/user-roles.js';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import type { Principal } from '../auth/principal.js';
import { DeletedDto } from '../http/api-fields.js';
import { IdPipe } from '../http/id.js';
import { Route } from '../http/route.decorator.js';
import { BulkAdminsDto, CreateAdminDto, UpdateAdminDto } from './dto/admin.dto.js';
import { AdminDto, BulkAdminsResultDto } from './dto/admin.response.js';
import { AdminsService } from './admins.service.js';

/** The Operators page (W-UI's paths): the panel's users, the owner's alone. */
@Controller()
export class AdminsController {
  constructor(private readonly admins: AdminsService) {}

  @Route({
    method: 'GET',
    path: 'admins',
    group: 'admins',
    roles: OWNER_ONLY,
    summary: "The panel's users (operators): role, whether enabled, sessions and last use; never a password",
    response: [AdminDto],
  })
  list() {
    return this.admins.list();
  }

  @Route({
    method: 'POST',
    path: 'admins',
    group: 'admins',
    roles: OWNER_ONLY,
    summary: 'Add a user with a temporary password they must change at their first sign-in',
    example: { username: 'colleague', password: 'a temporary passphrase', role: 'viewer' },
    status: 201,
    response: AdminDto,
    errors: [409],
  })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateAdminDto) {
    return this.admins.create(principal, body);
  }

  @Route({
    method: 'POST',
    path: 'admins/bulk',
    group: 'admins',
    roles: OWNER_ONLY,
    summary: 'Enable, disable or delete several users at once: all of them or none',
    example: { ids: ['00000000-0000-4000-8000-000000000000'], action: 'disable' },
    response: BulkAdminsResultDto,
    errors: [404, 409],
  })
  bulk(@CurrentPrincipal() principal: Principal, @Body() body: BulkAdminsDto) {
    return this.admins.bulk(principal, body.ids, body.action);
  }

  @Route({
    method: 'GET',
    path: 'admins/:id',
    group: 'admins',
    roles: OWNER_ONLY,
    summary: 'One user',
    response: AdminDto,
  })
  get(@Param('id', new IdPipe('user')) id: string) {
    return this.admins.get(id);
  }

  @Route({
    method: 'PATCH',
    path: 'admins/:id',
    group: 'admins',
    roles: OWNER_ONLY,
    summary:
      "Rename, change the role, disable or re-enable a user, set a temporary password (their sessions end), or a reseller's ceilings; the last owner stays one",
    example: { role: 'reseller', limits: { maxClients: 100, trafficPoolBytes: 1099511627776, maxExpiryDays: 31 } },
    response: AdminDto,
    errors: [409],
  })
  update(
    @CurrentPrincipal() principal: Principal,
    @Param('id', new IdPipe('user')) id: string,
    @Body() body: UpdateAdminDto,
  ) {
    return this.admins.update(principal, id, body);
  }

  @Route({
    method: 'DELETE',
    path: 'admins/:id',
    group: 'admins',
    roles: OWNER_ONLY,
    summary: 'Delete a user with their sessions and API tokens; never oneself nor the last owner',
    response: DeletedDto,
    errors: [409],
  })
  remove(@CurrentPrincipal() principal: Principal, @Param('id', new IdPipe('user')) id: string) {
    return this.admins.remove(principal, id);
  }

  @Route({
    method: 'POST',
    path: 'admins/:id/reset-usage',
    group: 'admins',
    roles: OWNER_ONLY,
    summary:
      "Start a reseller's traffic pool afresh (their clients' own traffic stays); any other role answers 409 (docs/operators.md)",
    response: AdminDto,
    errors: [409],
  })
  resetUsage(@CurrentPrincipal() principal: Principal, @Param('id', new IdPipe('user')) id: string) {
    return this.admins.resetUsage(principal, id);
  }
}
