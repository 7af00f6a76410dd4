import { Body, Controller, Inject, Logger, Param, Query, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { WarrenConfig } from '../config/config.js';
import { ApiError } from '../http/api-error.js';
import { requestOrigin } from '../http/request-origin.js';
import { WARREN_CONFIG } from '../runtime.js';
import { AgentLinkGateway } from '../agents/agent-link.gateway.js';
import { AgentCredentialsService } from './agent-credentials.service.js';
import { Route } from '../http/route.decorator.js';
import { ForceQueryDto, isForced } from './dto/force-query.dto.js';
import { CreateNodeDto, UpdateNodeDto } from './dto/node.dto.js';
import { NodesService } from './nodes.service.js';
import { CreatedNodeDto, NodeDeletedDto, NodeDto } from './dto/node.response.js';

/** The registry of tunnel hosts; each has a desired-state revision and the revision its agent applied. */
@Controller()
export class NodesController {
  private readonly logger = new Logger('nodes');

  constructor(
    private readonly nodes: NodesService,
    private readonly credentials: AgentCredentialsService,
    private readonly links: AgentLinkGateway,
    @Inject(WARREN_CONFIG) private readonly config: WarrenConfig,
  ) {}

  @Route({ method: 'GET', path: 'nodes', group: 'nodes', summary: 'List nodes with their revisions, sync state and interface counts', response: [NodeDto] })
  list() {
    return this.nodes.list();
  }

  @Route({ method: 'GET', path: 'nodes/:id', group: 'nodes', summary: 'Read one node', response: NodeDto })
  get(@Param('id') id: string) {
    return this.nodes.get(id);
  }

  @Route({
    method: 'POST',
    path: 'nodes',
    group: 'nodes',
    summary: "Register a node (a tunnel host); the answer carries its agent's one-time enrolment secret and command",
    example: { name: 'fra-1', address: 'fra-1.example.com', note: 'Frankfurt' },
    status: 201,
    response: CreatedNodeDto,
    errors: [409],
  })
  async create(@Body() body: CreateNodeDto, @Req() request: FastifyRequest) {
    const node = await this.nodes.create(body);
    try {
      const enrolment = await this.credentials.issueEnrolment(node.id, `${requestOrigin(request)}${this.config.basePath}`);
      return { ...node, enrolment };
    } catch (error) {
      // The node exists either way; a panel that cannot enrol remote agents says why.
      if (error instanceof ApiError && error.status === 409) return { ...node, enrolment: null, enrolmentError: error.message };
      throw error;
    }
  }

  @Route({
    method: 'PATCH',
    path: 'nodes/:id',
    group: 'nodes',
    summary: "Rename a node or change its address or note",
    example: { note: 'moved to rack 4' },
    response: NodeDto,
    errors: [409],
  })
  update(@Param('id') id: string, @Body() body: UpdateNodeDto) {
    return this.nodes.update(id, body);
  }

  @Route({
    method: 'DELETE',
    path: 'nodes/:id',
    group: 'nodes',
    summary: 'Delete a node; refused while it has interfaces unless forced, never for the local node',
    query: { force: 'true to delete the node together with its interfaces and their accounts' },
    response: NodeDeletedDto,
    errors: [409],
  })
  async remove(@Param('id') id: string, @Query() query: ForceQueryDto) {
    const removed = await this.nodes.remove(id, isForced(query));
    // Its credential rows cascaded with the node; its Redis user and open link go now too.
    this.links.disconnect(id);
    await this.credentials.forget(id).catch((error: Error) => this.logger.warn(`removing the Redis user of node ${id} failed: ${error.message}`));
    return removed;
  }
}
