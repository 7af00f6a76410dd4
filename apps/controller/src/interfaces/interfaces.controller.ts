import { Body, Controller, Param, Query } from '@nestjs/common';
import { MANAGERS, SIGNED_IN } from '#libs/contracts/user-roles.js';
import { IdPipe } from '../http/id.js';
import { Route } from '../http/route.decorator.js';
import { ForceQueryDto, isForced } from '../http/force-query.dto.js';
import {
  CloneInterfaceDto,
  CreateInterfaceDto,
  ListInterfacesQueryDto,
  UpdateInterfaceDto,
} from './dto/interface.dto.js';
import { InterfacesService } from './interfaces.service.js';
import { InterfaceDeletedDto, InterfaceDto, InterfaceProfileDto } from './dto/interface.response.js';

/** WireGuard and AmneziaWG interfaces (tunnels); rules and bounds are in docs/interfaces.md. */
@Controller()
export class InterfacesController {
  constructor(private readonly interfaces: InterfacesService) {}

  @Route({
    method: 'GET',
    path: 'interfaces',
    group: 'interfaces',
    roles: SIGNED_IN,
    summary: 'List interfaces with pool capacity and allocated, client and device counts',
    query: { nodeId: 'only the interfaces of this node' },
    response: [InterfaceDto],
    errors: [404],
  })
  list(@Query() query: ListInterfacesQueryDto) {
    return this.interfaces.list(query);
  }

  @Route({
    method: 'GET',
    path: 'interfaces/:id',
    group: 'interfaces',
    roles: SIGNED_IN,
    summary: 'Read one interface with its counts',
    response: InterfaceDto,
  })
  get(@Param('id', new IdPipe('interface')) id: string) {
    return this.interfaces.get(id);
  }

  @Route({
    method: 'GET',
    path: 'interfaces/:id/profile',
    group: 'interfaces',
    roles: MANAGERS,
    summary:
      "The interface's server side as a wg-quick file (address, port, MTU, peers), as its node runs it; the private and preshared keys are withheld",
    response: InterfaceProfileDto,
  })
  profile(@Param('id', new IdPipe('interface')) id: string) {
    return this.interfaces.profile(id);
  }

  @Route({
    method: 'POST',
    path: 'interfaces',
    group: 'interfaces',
    roles: MANAGERS,
    summary:
      'Create an interface (server keys, and AmneziaWG parameters in amnezia mode, are generated); nodeId defaults to the local node',
    example: {
      name: 'wg0',
      mode: 'standard',
      listenPort: 51820,
      subnet: '10.8.0.0/24',
      endpointHost: 'vpn.example.com',
    },
    status: 201,
    response: InterfaceDto,
    errors: [404, 409],
  })
  create(@Body() body: CreateInterfaceDto) {
    return this.interfaces.create(body);
  }

  @Route({
    method: 'PATCH',
    path: 'interfaces/:id',
    group: 'interfaces',
    roles: MANAGERS,
    summary: 'Change an interface; the subnet only while no addresses are allocated, never its node or mode',
    example: { endpointHost: 'vpn2.example.com', mtu: 1380 },
    response: InterfaceDto,
    errors: [409],
  })
  update(@Param('id', new IdPipe('interface')) id: string, @Body() body: UpdateInterfaceDto) {
    return this.interfaces.update(id, body);
  }

  @Route({
    method: 'DELETE',
    path: 'interfaces/:id',
    group: 'interfaces',
    roles: MANAGERS,
    summary: 'Delete an interface; refused while devices use it unless forced',
    query: { force: 'true to delete it together with its devices’ accounts on it' },
    response: InterfaceDeletedDto,
    errors: [409],
  })
  remove(@Param('id', new IdPipe('interface')) id: string, @Query() query: ForceQueryDto) {
    return this.interfaces.remove(id, isForced(query));
  }

  @Route({
    method: 'POST',
    path: 'interfaces/:id/clone',
    group: 'interfaces',
    roles: MANAGERS,
    summary:
      "A new interface on the same node with this one's settings under a new name, port and subnet: new keys, no accounts",
    example: { name: 'wg1', listenPort: 51821, subnet: '10.9.0.0/24' },
    status: 201,
    response: InterfaceDto,
    errors: [409],
    audit: { action: 'interfaces.clone', target: 'interfaces' },
  })
  clone(@Param('id', new IdPipe('interface')) id: string, @Body() body: CloneInterfaceDto) {
    return this.interfaces.clone(id, body);
  }
}
