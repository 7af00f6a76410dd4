import { Body, Controller, Param, Query } from '@nestjs/common';
import { ApiBody } from '@nestjs/swagger';
import { MANAGERS, SIGNED_IN } from '#libs/contracts/user-roles.js';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import type { Principal } from '../auth/principal.js';
import { DeletedDto } from '../http/api-fields.js';
import { badRequest } from '../http/api-error.js';
import { IdPipe, isId } from '../http/id.js';
import { Route } from '../http/route.decorator.js';
import {
  CheckQueryDto,
  CreateOutboundDto,
  NodeBodyDto,
  NodeQueryDto,
  OutboundOrderDto,
  UpdateOutboundDto,
} from './dto/outbound.dto.js';
import { OutboundDto, ProbeResultDto } from './dto/outbound.response.js';
import {
  CheckAllQueryDto,
  HopCheckDto,
  KeyPairDto,
  OutboundConfigDto,
  ParsedOutboundDto,
  ParseOutboundDto,
} from './dto/outbound-tools.dto.js';
import { OutboundToolsService } from './outbound-tools.service.js';
import { OutboundsService } from './outbounds.service.js';
import { ProbesService } from './probes.service.js';

/**
 * The node a body or query names: either may say (W-UI's clients send it in the body); not two
 * different ones. Something that cannot be a node id is bad input (400), not an unknown node (404).
 */
function nodeIdOf(body: NodeBodyDto, query: NodeQueryDto): string | undefined {
  const inBody = body.nodeId;
  if (inBody !== undefined && query.nodeId !== undefined && inBody !== query.nodeId)
    throw badRequest('nodeId is given twice (body and query) with different values', 'nodeId');
  const nodeId = inBody ?? query.nodeId;
  if (nodeId !== undefined && !isId(nodeId)) throw badRequest('nodeId must be a node id (a UUID)', 'nodeId');
  return nodeId;
}

/** Outbounds (hops) and their probes; rules and decisions are in docs/outbounds.md. */
@Controller()
export class OutboundsController {
  constructor(
    private readonly outbounds: OutboundsService,
    private readonly probes: ProbesService,
    private readonly tools: OutboundToolsService,
  ) {}

  @Route({
    method: 'GET',
    path: 'outbounds',
    group: 'outbounds',
    roles: SIGNED_IN,
    summary: "List a node's outbounds (the built-ins direct and blocked first), with each hop's state and last check",
    query: { nodeId: 'the node (default: the local node)' },
    response: [OutboundDto],
    errors: [404],
  })
  list(@Query() query: NodeQueryDto) {
    return this.outbounds.list(query.nodeId);
  }

  @Route({
    method: 'GET',
    path: 'outbounds/:id',
    group: 'outbounds',
    roles: SIGNED_IN,
    summary: 'Read one outbound (no secrets)',
    response: OutboundDto,
  })
  get(@Param('id', new IdPipe('outbound')) id: string) {
    return this.outbounds.get(id);
  }

  @Route({
    method: 'POST',
    path: 'outbounds',
    group: 'outbounds',
    roles: MANAGERS,
    summary: 'Create a hop (wireguard, socks, http or shadowsocks) on a node; nodeId defaults to the local node',
    example: {
      tag: 'upstream-socks',
      kind: 'socks',
      address: '203.0.113.7:1080',
      username: 'user',
      password: 'secret',
    },
    status: 201,
    response: OutboundDto,
    errors: [404, 409],
  })
  create(@Body() body: CreateOutboundDto) {
    return this.outbounds.create(body);
  }

  @Route({
    method: 'POST',
    path: 'outbounds/order',
    group: 'outbounds',
    roles: MANAGERS,
    summary:
      "Set the display order of a node's hops: ids lists every hop of the node once (the built-ins are always first); answers the node's outbounds",
    query: { nodeId: 'the node (default: the local node)' },
    example: { ids: ['6f1c2f4e-0d1b-4c55-9a51-6a2b2f0c9e11', '0b7d9a3c-3f0e-4b8e-8f43-2f5d1c7e6a20'] },
    response: [OutboundDto],
    errors: [404],
  })
  order(@Query() query: NodeQueryDto, @Body() body: OutboundOrderDto) {
    return this.outbounds.order(query.nodeId, body.ids);
  }

  @Route({
    method: 'PATCH',
    path: 'outbounds/:id',
    group: 'outbounds',
    roles: MANAGERS,
    summary: 'Change a hop; never its node or kind; the built-ins cannot change',
    example: { enabled: false, note: 'upstream under maintenance' },
    response: OutboundDto,
    errors: [409],
  })
  update(@Param('id', new IdPipe('outbound')) id: string, @Body() body: UpdateOutboundDto) {
    return this.outbounds.update(id, body);
  }

  @Route({
    method: 'DELETE',
    path: 'outbounds/:id',
    group: 'outbounds',
    roles: MANAGERS,
    summary:
      'Delete a hop; refused for the built-ins and while rules or the default outbound use it (409 naming the rules)',
    response: DeletedDto,
    errors: [409],
  })
  remove(@Param('id', new IdPipe('outbound')) id: string) {
    return this.outbounds.remove(id);
  }

  @Route({
    method: 'POST',
    path: 'outbounds/:id/check',
    group: 'outbounds',
    roles: MANAGERS,
    summary:
      'Probe an outbound from its node (tcp: connect only; http, the default: fetch the probe URL through it); no agent answer in time is ok:false, errorClass timeout; a node whose agent is not linked answers ok:false, errorClass agent-not-linked at once',
    query: { mode: 'tcp or http (default)' },
    response: ProbeResultDto,
  })
  check(@Param('id', new IdPipe('outbound')) id: string, @Query() query: CheckQueryDto) {
    return this.probes.check(id, query.mode ?? 'http');
  }

  @Route({
    method: 'POST',
    path: 'outbounds/check',
    group: 'outbounds',
    roles: MANAGERS,
    summary:
      "Probe every enabled hop of a node at once (a few at a time), each as POST /api/outbounds/{id}/check; answers each hop's result in list order",
    query: { nodeId: 'the node (default: the local node)', mode: 'tcp or http (default)' },
    response: [HopCheckDto],
    errors: [404],
  })
  checkAll(@Query() query: CheckAllQueryDto) {
    return this.tools.checkAll(query.nodeId, query.mode ?? 'http');
  }

  @Route({
    method: 'POST',
    path: 'outbounds/:id/reset',
    group: 'outbounds',
    roles: MANAGERS,
    summary: "Zero a hop's traffic counters (upBytes, downBytes; since becomes now); answers the outbound",
    response: OutboundDto,
  })
  resetTraffic(@Param('id', new IdPipe('outbound')) id: string) {
    return this.outbounds.resetTraffic(id);
  }

  @Route({
    method: 'POST',
    path: 'outbounds/reset',
    group: 'outbounds',
    roles: MANAGERS,
    summary:
      "Zero the traffic counters of every outbound of a node (nodeId in the body or the query; default: the local node); answers the node's outbounds",
    query: { nodeId: 'the node (default: the local node)' },
    response: [OutboundDto],
    errors: [404],
  })
  @ApiBody({
    type: NodeBodyDto,
    required: false,
    description: 'May be left out (nodeId in the query, or the local node)',
  })
  resetAllTraffic(@Query() query: NodeQueryDto, @Body() body: NodeBodyDto) {
    return this.outbounds.resetAllTraffic(nodeIdOf(body, query));
  }

  @Route({
    method: 'POST',
    path: 'outbounds/parse',
    group: 'outbounds',
    roles: MANAGERS,
    summary:
      'Read a share link (ss://, socks5://, socks://, http://) or a WireGuard .conf into a body POST /api/outbounds accepts; creates nothing; a 400 on text says what is wrong',
    example: { text: 'socks5://user:secret@203.0.113.7:1080#upstream' },
    response: ParsedOutboundDto,
    audit: false,
  })
  parse(@Body() body: ParseOutboundDto) {
    return this.tools.parse(body);
  }

  @Route({
    method: 'GET',
    path: 'outbounds/:id/config',
    group: 'outbounds',
    roles: MANAGERS,
    summary:
      "A hop as a wg-quick file or share link for another client; its secrets only for the owner's session (the template's rule)",
    response: OutboundConfigDto,
  })
  config(@Param('id', new IdPipe('outbound')) id: string, @CurrentPrincipal() principal: Principal) {
    return this.tools.config(id, principal.role === 'owner' && principal.via === 'session');
  }

  @Route({
    method: 'POST',
    path: 'wgkey',
    group: 'outbounds',
    roles: MANAGERS,
    summary: 'A fresh WireGuard key pair (for a hop or an upstream peer); stored nowhere',
    response: KeyPairDto,
    audit: false,
  })
  wgkey() {
    return this.tools.keyPair();
  }
}
