import { Body, Controller, Param, Query } from '@nestjs/common';
import { MANAGERS, SIGNED_IN } from '#libs/contracts/user-roles.js';
import { IdPipe } from '../http/id.js';
import { Route } from '../http/route.decorator.js';
import { CreateHostDto, ListHostsQueryDto, UpdateHostDto } from './dto/host.dto.js';
import { HostsService } from './hosts.service.js';
import { HostDto } from './dto/host.response.js';
import { DeletedDto } from '../http/api-fields.js';

/** The addresses clients dial for an interface; one profile is rendered per enabled host. */
@Controller()
export class HostsController {
  constructor(private readonly hosts: HostsService) {}

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
}
