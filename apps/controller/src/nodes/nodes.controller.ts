import { Body, Controller, Inject, Param, Query, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { MANAGERS, OWNER_ONLY, SIGNED_IN } from '#libs/contracts/user-roles.js';
import type { WarrenConfig } from '../config/config.js';
import { IdPipe } from '../http/id.js';
import { requestOrigin } from '../http/request-origin.js';
import { WARREN_CONFIG } from '../runtime.js';
import { Route } from '../http/route.decorator.js';
import { ForceQueryDto, isForced } from '../http/force-query.dto.js';
import { CreateNodeDto, UpdateNodeDto } from './dto/node.dto.js';
import { NodesService } from './nodes.service.js';
import { CreatedNodeDto, NodeDeletedDto, NodeDto } from './dto/node.response.js';
import { NodeProbeDto } from './dto/node-probe.response.js';
import { NodeProbeService } from './probe/node-probe.service.js';
import { NodeUpdateDto, StartNodeUpdateDto } from './dto/node-update.dto.js';
import { NodeUpdateService } from './update/node-update.service.js';

/** The registry of tunnel hosts; each has a desired-state revision and the revision its agent applied. */
@Controller()
export class NodesController {
  constructor(
    private readonly nodes: NodesService,
    private readonly probes: NodeProbeService,
    private readonly agentUpdates: NodeUpdateService,
    @Inject(WARREN_CONFIG) private readonly config: WarrenConfig,
  ) {}

  @Route({
    method: 'GET',
    path: 'nodes',
    group: 'nodes',
    roles: SIGNED_IN,
    summary: 'List nodes with their revisions, sync state and interface counts',
    response: [NodeDto],
  })
  list() {
    return this.nodes.list();
  }

  @Route({
    method: 'GET',
    path: 'nodes/:id',
    group: 'nodes',
    roles: SIGNED_IN,
    summary: 'Read one node',
    response: NodeDto,
  })
  get(@Param('id', new IdPipe('node')) id: string) {
    return this.nodes.get(id);
  }

  @Route({
    method: 'POST',
    path: 'nodes',
    group: 'nodes',
    roles: MANAGERS,
    summary: "Register a node (a tunnel host); the answer carries its agent's one-time enrolment secret and command",
    example: { name: 'fra-1', address: 'fra-1.example.com', note: 'Frankfurt' },
    status: 201,
    response: CreatedNodeDto,
    errors: [409],
  })
  create(@Body() body: CreateNodeDto, @Req() request: FastifyRequest) {
    return this.nodes.create(body, `${requestOrigin(request, this.config.publicUrl)}${this.config.basePath}`);
  }

  @Route({
    method: 'PATCH',
    path: 'nodes/:id',
    group: 'nodes',
    roles: MANAGERS,
    summary: 'Rename a node or change its address or note',
    example: { note: 'moved to rack 4' },
    response: NodeDto,
    errors: [409],
  })
  update(@Param('id', new IdPipe('node')) id: string, @Body() body: UpdateNodeDto) {
    return this.nodes.update(id, body);
  }

  @Route({
    method: 'DELETE',
    path: 'nodes/:id',
    group: 'nodes',
    roles: MANAGERS,
    summary: 'Delete a node; refused while it has interfaces unless forced, never for the local node',
    query: { force: 'true to delete the node together with its interfaces and their accounts' },
    response: NodeDeletedDto,
    errors: [409],
  })
  remove(@Param('id', new IdPipe('node')) id: string, @Query() query: ForceQueryDto) {
    return this.nodes.remove(id, isForced(query));
  }

  @Route({
    method: 'POST',
    path: 'nodes/:id/probe',
    group: 'nodes',
    roles: MANAGERS,
    summary:
      "Probe a node over its agent's link: the round trip, the agent's and the panel's versions (with a warning when they differ) and the host's facts (kernel, OS, WireGuard and nft versions, CPUs, memory, uptime, load)",
    response: NodeProbeDto,
    errors: [404, 409, 503],
  })
  probe(@Param('id', new IdPipe('node')) id: string) {
    return this.probes.probe(id);
  }

  @Route({
    method: 'POST',
    path: 'nodes/:id/update',
    group: 'nodes',
    roles: OWNER_ONLY,
    summary:
      "Update the node's agent to the panel's own package (checksum verified on the node, installed beside the running release); 202 with the update to follow: done when the new version links, rolled back by the node's launcher when it does not within the deadline",
    example: { linkDeadlineSeconds: 120 },
    status: 202,
    response: NodeUpdateDto,
    errors: [404, 409, 503],
    audit: { action: 'nodes.agent.update' },
  })
  startUpdate(@Param('id', new IdPipe('node')) id: string, @Body() body: StartNodeUpdateDto) {
    return this.agentUpdates.start(id, body.linkDeadlineSeconds);
  }

  @Route({
    method: 'GET',
    path: 'nodes/:id/update',
    group: 'nodes',
    roles: OWNER_ONLY,
    summary:
      "The node's latest agent update started on this panel: its state (installing, restarting, done, rolled-back, failed) and error",
    response: NodeUpdateDto,
    errors: [404],
  })
  latestUpdate(@Param('id', new IdPipe('node')) id: string) {
    return this.agentUpdates.latest(id);
  }
}
