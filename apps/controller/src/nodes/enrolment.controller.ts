import { Body, Controller, Inject, Param, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { MANAGERS } from '#libs/contracts/user-roles.js';
import type { WarrenConfig } from '../config/config.js';
import { Route } from '../http/route.decorator.js';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import type { Principal } from '../auth/principal.js';
import { IdPipe } from '../http/id.js';
import { requestOrigin } from '../http/request-origin.js';
import { WARREN_CONFIG } from '../runtime.js';
import { EnrolDto } from './dto/enrol.dto.js';
import { EnrolledDto, EnrolmentDto } from './dto/node.response.js';
import { NodesService } from './nodes.service.js';

/** How an agent joins: a one-time secret per node, exchanged for the node's own credential. */
@Controller()
export class EnrolmentController {
  constructor(
    private readonly nodes: NodesService,
    @Inject(WARREN_CONFIG) private readonly config: WarrenConfig,
  ) {}

  @Route({
    method: 'POST',
    path: 'nodes/:id/enrolment',
    group: 'nodes',
    roles: MANAGERS,
    summary:
      "Issue a new one-time enrolment secret for the node's agent (24 h; replaces an unused one); a node holding interfaces or hops: the owner only",
    status: 201,
    response: EnrolmentDto,
    errors: [403, 409],
  })
  issue(
    @CurrentPrincipal() principal: Principal,
    @Param('id', new IdPipe('node')) id: string,
    @Req() request: FastifyRequest,
  ) {
    const panelUrl = `${requestOrigin(request, this.config.publicUrl)}${this.config.basePath}`;
    return this.nodes.issueEnrolment(id, panelUrl, principal.role);
  }

  @Route({
    method: 'POST',
    path: 'agent/enrol',
    group: 'agents',
    summary: "Agent only: exchange an enrolment secret for the node credential and the node's queue access",
    example: { secret: 'wne_…' },
    public: true,
    audit: { target: 'nodes' },
    response: EnrolledDto,
    errors: [401, 503],
  })
  enrol(@Body() body: EnrolDto) {
    return this.nodes.enrolAgent(body.secret);
  }
}
