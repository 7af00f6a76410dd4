import { Controller, Query } from '@nestjs/common';
import { SIGNED_IN } from '#libs/contracts/user-roles.js';
import { Route } from '../http/route.decorator.js';
import { HistoryQueryDto } from './dto/history-query.dto.js';
import { SystemService } from './system.service.js';
import { SystemHistoryDto, SystemSnapshotDto } from './dto/system.response.js';
import { DEFAULT_HISTORY_RANGE, HISTORY_POINTS, HISTORY_RANGE_NAMES } from './tiers.js';

/** Host state and history: the controller's own host and every node (docs/system.md). */
@Controller()
export class SystemController {
  constructor(private readonly system: SystemService) {}

  @Route({
    method: 'GET',
    path: 'system',
    group: 'system',
    roles: SIGNED_IN,
    summary: "Host state: the controller's host, and every node with its agent, sync state and latest sample",
    response: SystemSnapshotDto,
  })
  snapshot() {
    return this.system.snapshot();
  }

  @Route({
    method: 'GET',
    path: 'system/history',
    group: 'system',
    roles: SIGNED_IN,
    summary: `Host history: ${HISTORY_POINTS} points per series (cpu, memory, swap, disk, rxRate, txRate, load1) over a range`,
    query: {
      range: `${HISTORY_RANGE_NAMES.join(' | ')} (default ${DEFAULT_HISTORY_RANGE})`,
      nodeId: "a node's id; without it, the controller's own host",
    },
    response: SystemHistoryDto,
    errors: [404],
  })
  history(@Query() query: HistoryQueryDto) {
    return this.system.history(query.range ?? DEFAULT_HISTORY_RANGE, query.nodeId);
  }
}
