import { Body, Controller } from '@nestjs/common';
import { CLIENT_MANAGERS, CLIENT_READERS, MANAGERS, SIGNED_IN } from '#libs/contracts/user-roles.js';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import type { Principal } from '../auth/principal.js';
import { BulkJobDto } from '../clients/dto/bulk.response.js';
import { Route } from '../http/route.decorator.js';
import { AssignGroupDto, GroupActionDto, GroupNameDto, RenameGroupDto, SaveGroupDto } from './dto/group.dto.js';
import { GroupChangeDto, GroupDto, GroupNamesDto } from './dto/group.response.js';
import { GroupsService } from './groups.service.js';

/** Groups of clients (W-UI's paths): defaults for new members, membership, actions on members. */
@Controller()
export class GroupsController {
  constructor(private readonly groups: GroupsService) {}

  @Route({
    method: 'GET',
    path: 'groups',
    group: 'groups',
    roles: SIGNED_IN,
    summary: 'Every group (defined, or named by clients) with its defaults and member count',
    response: [GroupDto],
  })
  list(@CurrentPrincipal() principal: Principal) {
    return this.groups.list(principal);
  }

  @Route({
    method: 'GET',
    path: 'groups/names',
    group: 'groups',
    roles: CLIENT_READERS,
    summary:
      "Every group name, sorted (for pickers); a reseller's: the defined groups and those their own clients carry",
    response: GroupNamesDto,
  })
  names(@CurrentPrincipal() principal: Principal) {
    return this.groups.names(principal);
  }

  @Route({
    method: 'POST',
    path: 'groups',
    group: 'groups',
    roles: MANAGERS,
    summary:
      'Make a group or replace its defaults (quota, expiry days, device limit, interfaces, speed limit) for clients created in it',
    example: { name: 'trial', quotaBytes: 5368709120, expiryDays: 7, deviceLimit: 1, rateBitsPerSec: 10000000 },
    response: GroupDto,
    errors: [404],
  })
  save(@CurrentPrincipal() principal: Principal, @Body() body: SaveGroupDto) {
    return this.groups.save(principal, body);
  }

  @Route({
    method: 'POST',
    path: 'groups/delete',
    group: 'groups',
    roles: MANAGERS,
    summary: "Delete a group: its defaults go and its name leaves every member's groups (the clients stay)",
    example: { name: 'trial' },
    response: GroupChangeDto,
    errors: [404, 409],
  })
  delete(@CurrentPrincipal() principal: Principal, @Body() body: GroupNameDto) {
    return this.groups.delete(principal, body.name);
  }

  @Route({
    method: 'POST',
    path: 'groups/rename',
    group: 'groups',
    roles: MANAGERS,
    summary: "Rename a group: its defaults and every member's groups, in one statement",
    example: { name: 'trial', newName: 'trial-2027' },
    response: GroupChangeDto,
    errors: [404, 409],
  })
  rename(@CurrentPrincipal() principal: Principal, @Body() body: RenameGroupDto) {
    return this.groups.rename(principal, body.name, body.newName);
  }

  @Route({
    method: 'POST',
    path: 'groups/assign',
    group: 'groups',
    roles: CLIENT_MANAGERS,
    summary:
      "Put the selected clients (ids or filter) in a group, or take them out with remove: all or none (a reseller's: their own clients)",
    example: { ids: ['00000000-0000-4000-8000-000000000000'], name: 'trial' },
    response: GroupChangeDto,
    errors: [404, 409],
  })
  assign(@CurrentPrincipal() principal: Principal, @Body() body: AssignGroupDto) {
    return this.groups.assign(principal, body);
  }

  @Route({
    method: 'POST',
    path: 'groups/action',
    group: 'groups',
    roles: CLIENT_MANAGERS,
    summary:
      "A bulk action on the group's members (enable, disable, delete, reset, extend, adjust) as one job: 202, follow GET /api/jobs/{id}",
    example: { name: 'trial', action: 'extend', days: 30 },
    status: 202,
    response: BulkJobDto,
    errors: [404, 503],
  })
  action(@CurrentPrincipal() principal: Principal, @Body() body: GroupActionDto) {
    return this.groups.action(principal, body);
  }
}
