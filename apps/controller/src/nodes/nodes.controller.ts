import { Body, Controller, Param, Query } from '@nestjs/common';
import { Route } from '../http/route.decorator.js';
import { ForceQueryDto, isForced } from './dto/force-query.dto.js';
import { CreateNodeDto, UpdateNodeDto } from './dto/node.dto.js';
import { NodesService } from './nodes.service.js';

/** The registry of tunnel hosts; each has a desired-state revision and the revision its agent applied. */
@Controller()
export class NodesController {
  constructor(private readonly nodes: NodesService) {}

  @Route({ method: 'GET', path: 'nodes', group: 'nodes', summary: 'List nodes with their revisions, sync state and interface counts' })
  list() {
    return this.nodes.list();
  }

  @Route({ method: 'GET', path: 'nodes/:id', group: 'nodes', summary: 'Read one node' })
  get(@Param('id') id: string) {
    return this.nodes.get(id);
  }

  @Route({
    method: 'POST',
    path: 'nodes',
    group: 'nodes',
    summary: 'Register a node (a tunnel host)',
    example: { name: 'fra-1', address: 'fra-1.example.com', note: 'Frankfurt' },
    status: 201,
  })
  create(@Body() body: CreateNodeDto) {
    return this.nodes.create(body);
  }

  @Route({
    method: 'PATCH',
    path: 'nodes/:id',
    group: 'nodes',
    summary: "Rename a node or change its address or note",
    example: { note: 'moved to rack 4' },
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
  })
  remove(@Param('id') id: string, @Query() query: ForceQueryDto) {
    return this.nodes.remove(id, isForced(query));
  }
}
