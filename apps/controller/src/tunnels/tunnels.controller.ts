import { Body, Controller, Param } from '@nestjs/common';
import { MANAGERS } from '#libs/contracts/user-roles.js';
import { IdPipe } from '../http/id.js';
import { Route } from '../http/route.decorator.js';
import { InterfaceRestartDto, TunnelsNodeDto, TunnelsOutcomeDto } from './dto/tunnels.dto.js';
import { TunnelsService } from './tunnels.service.js';

/** Restarting, stopping and starting tunnels on their nodes (W-UI's paths; docs/interfaces.md). */
@Controller()
export class TunnelsController {
  constructor(private readonly tunnels: TunnelsService) {}

  @Route({
    method: 'POST',
    path: 'interfaces/:id/restart',
    group: 'interfaces',
    roles: MANAGERS,
    summary:
      'Take the interface down and up again on its node (every peer handshakes again); peers, addresses, speed limits and quotas are loaded again, usage goes on exactly',
    response: InterfaceRestartDto,
    errors: [409],
    audit: { target: 'interfaces' },
  })
  restartInterface(@Param('id', new IdPipe('interface')) id: string) {
    return this.tunnels.restartInterface(id);
  }

  @Route({
    method: 'POST',
    path: 'tunnels/restart',
    group: 'nodes',
    roles: MANAGERS,
    summary:
      "Restart every enabled interface of a node (the local node when none is named); refused while they're stopped",
    example: { nodeId: '0b6f3c1e-9a51-4f7c-8d3e-2a1b5c6d7e8f' },
    response: TunnelsOutcomeDto,
    errors: [404, 409],
    audit: { target: 'nodes' },
  })
  restart(@Body() body: TunnelsNodeDto) {
    return this.tunnels.restart(body.nodeId);
  }

  @Route({
    method: 'POST',
    path: 'tunnels/stop',
    group: 'nodes',
    roles: MANAGERS,
    summary:
      "Take every interface of a node down and keep them down (also across agent restarts) until started; the node's tunnelsStopped says so",
    example: { nodeId: '0b6f3c1e-9a51-4f7c-8d3e-2a1b5c6d7e8f' },
    response: TunnelsOutcomeDto,
    errors: [404],
    audit: { target: 'nodes' },
  })
  stop(@Body() body: TunnelsNodeDto) {
    return this.tunnels.setStopped(body.nodeId, true);
  }

  @Route({
    method: 'POST',
    path: 'tunnels/start',
    group: 'nodes',
    roles: MANAGERS,
    summary: "Bring a node's stopped interfaces up again",
    example: { nodeId: '0b6f3c1e-9a51-4f7c-8d3e-2a1b5c6d7e8f' },
    response: TunnelsOutcomeDto,
    errors: [404],
    audit: { target: 'nodes' },
  })
  start(@Body() body: TunnelsNodeDto) {
    return this.tunnels.setStopped(body.nodeId, false);
  }
}
