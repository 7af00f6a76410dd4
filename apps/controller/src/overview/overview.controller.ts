import { Controller } from '@nestjs/common';
import { SIGNED_IN } from '#libs/contracts/user-roles.js';
import { Route } from '../http/route.decorator.js';
import { OverviewDto } from './dto/overview.response.js';
import { OverviewService } from './overview.service.js';

/** The dashboard's one call (docs/overview.md). It shows no secret, so every role may read it. */
@Controller()
export class OverviewController {
  constructor(private readonly overview: OverviewService) {}

  @Route({
    method: 'GET',
    path: 'overview/full',
    group: 'overview',
    roles: SIGNED_IN,
    summary:
      'Telemetry, panel state and inventory in one call: host samples, version, backends, node sync, last enforcement and backup, counts and totals',
    response: OverviewDto,
  })
  full() {
    return this.overview.full();
  }
}
