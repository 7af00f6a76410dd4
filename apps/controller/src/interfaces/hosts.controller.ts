import { Body, Controller, Param, Query } from '@nestjs/common';
import { MANAGERS, SIGNED_IN } from '#libs/contracts/user-roles.js';
import { IdPipe } from '../http/id.js';
import { Route } from '../http/route.decorator.js';
import {
  CreateHostDto,
  CreateHostGroupDto,
  HostBulkDto,
  HostGroupBulkDto,
  HostGroupOrderDto,
  HostOrderDto,
  ListHostsQueryDto,
  ReplaceHostGroupDto,
  UpdateHostDto,
} from './dto/host.dto.js';
import { HostGroupsService } from './host-groups.service.js';
import { HostsService } from './hosts.service.js';
import {
  HostBulkResultDto,
  HostCheckDto,
  HostDto,
  HostGroupBulkResultDto,
  HostGroupDto,
  HostTagDto,
  OrderResultDto,
} from './dto/host.response.js';
import { DeletedDto } from '../http/api-fields.js';

/** The addresses clients dial for an interface; one profile is rendered per enabled host. */
@Controller()
export class HostsController {
  constructor(
    private readonly hosts: HostsService,
    private readonly groups: HostGroupsService,
  ) {}

  @Route({
    method: 'GET',
    path: 'hosts',
    group: 'hosts',
    roles: SIGNED_IN,
    summary: 'List hosts (alternative addresses clients dial), highest priority first',
    query: { interfaceId: 'only the hosts of this interface' },
    response: [HostDto],
    errors: [404],
  })
  list(@Query() query: ListHostsQueryDto) {
    return this.hosts.list(query);
  }

  @Route({
    method: 'POST',
    path: 'hosts',
    group: 'hosts',
    roles: MANAGERS,
    summary: "Add a host to an interface; port 0 means the interface's listen port",
    example: {
      interfaceId: '00000000-0000-4000-8000-000000000000',
      name: 'cdn',
      address: 'cdn.example.com',
      port: 443,
      priority: 10,
    },
    status: 201,
    response: HostDto,
    errors: [404, 409],
  })
  create(@Body() body: CreateHostDto) {
    return this.hosts.create(body);
  }

  @Route({
    method: 'PATCH',
    path: 'hosts/:id',
    group: 'hosts',
    roles: MANAGERS,
    summary: 'Change a host (name, address, port, priority, enabled)',
    example: { enabled: false },
    response: HostDto,
    errors: [409],
  })
  update(@Param('id', new IdPipe('host')) id: string, @Body() body: UpdateHostDto) {
    return this.hosts.update(id, body);
  }

  @Route({
    method: 'DELETE',
    path: 'hosts/:id',
    group: 'hosts',
    roles: MANAGERS,
    summary: 'Delete a host',
    response: DeletedDto,
  })
  remove(@Param('id', new IdPipe('host')) id: string) {
    return this.hosts.remove(id);
  }

  @Route({
    method: 'POST',
    path: 'hosts/:id/check',
    group: 'hosts',
    roles: MANAGERS,
    summary: 'Check a host: whether its address resolves, and to the node serving its interface',
    response: HostCheckDto,
    audit: false,
  })
  check(@Param('id', new IdPipe('host')) id: string) {
    return this.hosts.check(id);
  }

  @Route({
    method: 'POST',
    path: 'hosts/bulk',
    group: 'hosts',
    roles: MANAGERS,
    summary: 'Enable, disable, delete, tag or untag several hosts: every id must exist or nothing changes',
    example: { ids: ['00000000-0000-4000-8000-000000000000'], action: 'tag', tags: ['cdn'] },
    response: HostBulkResultDto,
    errors: [404],
  })
  bulk(@Body() body: HostBulkDto) {
    return this.hosts.bulk(body.ids, body.action, body.tags);
  }

  @Route({
    method: 'POST',
    path: 'hosts/reorder',
    group: 'hosts',
    roles: MANAGERS,
    summary: 'Order hosts: positions follow the ids given (among hosts of equal priority)',
    example: { ids: ['00000000-0000-4000-8000-000000000000'] },
    response: OrderResultDto,
    errors: [404],
  })
  reorder(@Body() body: HostOrderDto) {
    return this.hosts.reorder(body.ids);
  }

  @Route({
    method: 'GET',
    path: 'hosts/tags',
    group: 'hosts',
    roles: SIGNED_IN,
    summary: 'The tags hosts carry, each with how many hosts carry it',
    response: [HostTagDto],
  })
  tags() {
    return this.hosts.tags();
  }

  @Route({
    method: 'GET',
    path: 'hosts/groups',
    group: 'hosts',
    roles: SIGNED_IN,
    summary: 'Host groups in their order, each with its client groups and host count',
    response: [HostGroupDto],
  })
  listGroups() {
    return this.groups.list();
  }

  @Route({
    method: 'POST',
    path: 'hosts/groups',
    group: 'hosts',
    roles: MANAGERS,
    summary: 'Make a host group (last in order), optionally tied to client groups and with hosts put in it',
    example: { name: 'cdn', clientGroups: ['premium'] },
    status: 201,
    response: HostGroupDto,
    errors: [404, 409],
    audit: { target: 'host-groups' },
  })
  createGroup(@Body() body: CreateHostGroupDto) {
    return this.groups.create(body);
  }

  @Route({
    method: 'PUT',
    path: 'hosts/groups/:gid',
    group: 'hosts',
    roles: MANAGERS,
    summary: 'Replace a host group: its name and the client groups it is tied to',
    example: { name: 'cdn', clientGroups: ['premium', 'trial'] },
    response: HostGroupDto,
    errors: [409],
    audit: { target: 'host-groups' },
  })
  replaceGroup(@Param('gid', new IdPipe('host group', 'gid')) gid: string, @Body() body: ReplaceHostGroupDto) {
    return this.groups.replace(gid, body);
  }

  @Route({
    method: 'DELETE',
    path: 'hosts/groups/:gid',
    group: 'hosts',
    roles: MANAGERS,
    summary: 'Delete a host group; its hosts stay, in no group',
    response: DeletedDto,
    audit: { target: 'host-groups' },
  })
  removeGroup(@Param('gid', new IdPipe('host group', 'gid')) gid: string) {
    return this.groups.remove(gid);
  }

  @Route({
    method: 'POST',
    path: 'hosts/groups/bulk',
    group: 'hosts',
    roles: MANAGERS,
    summary: 'Put several hosts in a host group (groupId null: in none); every id must exist or nothing changes',
    example: { groupId: '00000000-0000-4000-8000-000000000000', hostIds: ['00000000-0000-4000-8000-000000000001'] },
    response: HostGroupBulkResultDto,
    errors: [404],
    audit: { target: 'host-groups' },
  })
  bulkGroup(@Body() body: HostGroupBulkDto) {
    return this.groups.bulk(body.groupId ?? null, body.hostIds);
  }

  @Route({
    method: 'POST',
    path: 'hosts/groups/reorder',
    group: 'hosts',
    roles: MANAGERS,
    summary: "Order host groups: positions follow the ids given; configs carry hosts in their groups' order",
    example: { ids: ['00000000-0000-4000-8000-000000000000'] },
    response: OrderResultDto,
    errors: [404],
    audit: { target: 'host-groups' },
  })
  reorderGroups(@Body() body: HostGroupOrderDto) {
    return this.groups.reorder(body.ids);
  }
}
