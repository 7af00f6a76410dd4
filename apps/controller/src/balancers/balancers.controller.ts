import { Body, Controller, Param, Query } from '@nestjs/common';
import { MANAGERS, SIGNED_IN } from '#libs/contracts/user-roles.js';
import { DeletedDto } from '../http/api-fields.js';
import { IdPipe } from '../http/id.js';
import { Route } from '../http/route.decorator.js';
import { NodeQueryDto } from '../outbounds/dto/outbound.dto.js';
import { BalancersService } from './balancers.service.js';
import { BalancerOverrideDto, CreateBalancerDto, UpdateBalancerDto } from './dto/balancer.dto.js';
import { BalancerDto } from './dto/balancer.response.js';

/** Balancers: several hops under one tag that rules target (docs/outbounds.md, "Balancers"). */
@Controller()
export class BalancersController {
  constructor(private readonly balancers: BalancersService) {}

  @Route({
    method: 'GET',
    path: 'balancers',
    group: 'routing',
    roles: SIGNED_IN,
    summary: "List a node's balancers, each with its hops' health and where its traffic goes now",
    query: { nodeId: 'the node (default: the local node)' },
    response: [BalancerDto],
    errors: [404],
  })
  list(@Query() query: NodeQueryDto) {
    return this.balancers.list(query.nodeId);
  }

  @Route({
    method: 'POST',
    path: 'balancers',
    group: 'routing',
    roles: MANAGERS,
    summary: "Create a balancer of a node's hops (failover in order by health, or hash: clients spread by address)",
    example: {
      tag: 'upstreams',
      strategy: 'failover',
      hops: ['6f1c2f4e-0d1b-4c55-9a51-6a2b2f0c9e11', '0b7d9a3c-3f0e-4b8e-8f43-2f5d1c7e6a20'],
    },
    status: 201,
    response: BalancerDto,
    errors: [404, 409],
  })
  create(@Body() body: CreateBalancerDto) {
    return this.balancers.create(body);
  }

  @Route({
    method: 'PATCH',
    path: 'balancers/:id',
    group: 'routing',
    roles: MANAGERS,
    summary: "Change a balancer's tag, strategy, hops or note; never its node",
    example: { strategy: 'hash' },
    response: BalancerDto,
    errors: [409],
  })
  update(@Param('id', new IdPipe('balancer')) id: string, @Body() body: UpdateBalancerDto) {
    return this.balancers.update(id, body);
  }

  @Route({
    method: 'DELETE',
    path: 'balancers/:id',
    group: 'routing',
    roles: MANAGERS,
    summary: 'Delete a balancer no routing rule targets',
    response: DeletedDto,
    errors: [409],
  })
  remove(@Param('id', new IdPipe('balancer')) id: string) {
    return this.balancers.remove(id);
  }

  @Route({
    method: 'POST',
    path: 'balancers/:id/override',
    group: 'routing',
    roles: MANAGERS,
    summary:
      'Pin one of the hops until cleared (outboundId null or absent clears): its traffic goes there whatever the checks say',
    example: { outboundId: '0b7d9a3c-3f0e-4b8e-8f43-2f5d1c7e6a20' },
    response: BalancerDto,
  })
  override(@Param('id', new IdPipe('balancer')) id: string, @Body() body: BalancerOverrideDto) {
    return this.balancers.override(id, body.outboundId);
  }
}
