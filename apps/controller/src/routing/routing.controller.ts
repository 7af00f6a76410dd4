import { Body, Controller, Param, Query } from '@nestjs/common';
import { CLIENT_READERS, MANAGERS, SIGNED_IN } from '#libs/contracts/user-roles.js';
import { CallerScope, type OperatorScope } from '../auth/operator-scope.js';
import { DeletedDto } from '../http/api-fields.js';
import { IdPipe } from '../http/id.js';
import { Route } from '../http/route.decorator.js';
import { NodeQueryDto } from '../outbounds/dto/outbound.dto.js';
import { CreateRuleDto, RuleOrderDto, UpdateRoutingDto, UpdateRuleDto } from './dto/routing.dto.js';
import { RoutingDto, RoutingRuleDto } from './dto/routing.response.js';
import { RoutingService } from './routing.service.js';
import { RouteTestService } from './route-test.service.js';
import { RouteTestDto, RouteTestResultDto, RoutingAppliedDto, RoutingApplyDto } from './dto/route-test.dto.js';

const NODE_QUERY = { nodeId: 'the node (default: the local node)' };

/** Policy routing per node: basic settings and ordered rules (docs/outbounds.md). */
@Controller()
export class RoutingController {
  constructor(
    private readonly routing: RoutingService,
    private readonly routeTest: RouteTestService,
  ) {}

  @Route({
    method: 'GET',
    path: 'routing',
    group: 'routing',
    roles: SIGNED_IN,
    summary: "A node's routing: basic settings and rules in matching order",
    query: NODE_QUERY,
    response: RoutingDto,
    errors: [404],
  })
  get(@Query() query: NodeQueryDto) {
    return this.routing.get(query.nodeId);
  }

  @Route({
    method: 'PUT',
    path: 'routing',
    group: 'routing',
    roles: MANAGERS,
    summary:
      'Change the basic settings (default outbound, block and direct lists, fail-closed); absent fields keep their values',
    query: NODE_QUERY,
    example: { defaultOutbound: 'direct', blockBitTorrent: true, blockPorts: ['25'], failClosed: true },
    response: RoutingDto,
    errors: [404],
  })
  update(@Query() query: NodeQueryDto, @Body() body: UpdateRoutingDto) {
    return this.routing.updateBasic(query.nodeId, body);
  }

  @Route({
    method: 'POST',
    path: 'routing/rules',
    group: 'routing',
    roles: MANAGERS,
    summary: 'Add a rule at the end of the order; all given criteria must match, at least one is needed',
    query: NODE_QUERY,
    example: { name: 'streaming via hop', domains: ['example.com'], outboundTag: 'upstream-socks' },
    audit: { action: 'routing.rules.create', target: 'rules' },
    status: 201,
    response: RoutingRuleDto,
    errors: [404, 409],
  })
  createRule(@Query() query: NodeQueryDto, @Body() body: CreateRuleDto) {
    return this.routing.createRule(query.nodeId, body);
  }

  @Route({
    method: 'PATCH',
    path: 'routing/rules/:id',
    group: 'routing',
    roles: MANAGERS,
    summary: 'Change a rule',
    example: { enabled: false },
    response: RoutingRuleDto,
  })
  updateRule(@Param('id', new IdPipe('rule')) id: string, @Body() body: UpdateRuleDto) {
    return this.routing.updateRule(id, body);
  }

  @Route({
    method: 'DELETE',
    path: 'routing/rules/:id',
    group: 'routing',
    roles: MANAGERS,
    summary: 'Delete a rule',
    response: DeletedDto,
  })
  removeRule(@Param('id', new IdPipe('rule')) id: string) {
    return this.routing.removeRule(id);
  }

  @Route({
    method: 'POST',
    path: 'routing/rules/order',
    group: 'routing',
    roles: MANAGERS,
    summary: "Set the rules' matching order: ids lists every rule of the node once",
    query: NODE_QUERY,
    example: { ids: ['6f1c2f4e-0d1b-4c55-9a51-6a2b2f0c9e11', '0b7d9a3c-3f0e-4b8e-8f43-2f5d1c7e6a20'] },
    response: RoutingDto,
    errors: [404],
  })
  order(@Query() query: NodeQueryDto, @Body() body: RuleOrderDto) {
    return this.routing.order(query.nodeId, body.ids);
  }

  @Route({
    method: 'POST',
    path: 'routing/test',
    group: 'routing',
    roles: CLIENT_READERS,
    summary:
      "Which rule decides a packet from a client (or tunnel address) to an address or domain, and which outbound carries it: the node's routing as its agent applies it",
    example: {
      clientId: '6f1c2f4e-0d1b-4c55-9a51-6a2b2f0c9e11',
      destination: 'example.com',
      port: 443,
      protocol: 'tcp',
    },
    audit: false,
    status: 200,
    response: RouteTestResultDto,
    errors: [403, 404],
  })
  test(@Body() body: RouteTestDto, @CallerScope() scope: OperatorScope) {
    return this.routeTest.test(body, scope);
  }

  @Route({
    method: 'POST',
    path: 'routing/apply',
    group: 'routing',
    roles: MANAGERS,
    summary:
      "Re-apply the routing now: the node's revision (every node's without nodeId) moves on and its agent applies again",
    example: { nodeId: '6f1c2f4e-0d1b-4c55-9a51-6a2b2f0c9e11' },
    audit: { action: 'routing.apply', target: 'nodes' },
    status: 200,
    response: RoutingAppliedDto,
    errors: [404],
  })
  apply(@Body() body: RoutingApplyDto) {
    return this.routing.apply(body.nodeId, body.nodeId === undefined);
  }
}
