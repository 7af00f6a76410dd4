import { Controller, Query } from '@nestjs/common';
import { SIGNED_IN } from '#libs/contracts/user-roles.js';
import { Route } from '../http/route.decorator.js';
import { OverviewDto } from './dto/overview.response.js';
import { OverviewService } from './overview.service.js';
import { UsageQueryDto, UsageSeriesDto } from '../clients/dto/usage.dto.js';
import { UsageHistoryService } from '../clients/usage-history.service.js';
import { DEFAULT_USAGE_RANGE, USAGE_RANGE_NAMES } from '../clients/usage-tiers.js';

/** The dashboard's one call (docs/overview.md). It shows no secret, so every role may read it. */
@Controller()
export class OverviewController {
  constructor(
    private readonly overview: OverviewService,
    private readonly usage: UsageHistoryService,
  ) {}

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

  @Route({
    method: 'GET',
    path: 'overview/usage',
    group: 'overview',
    roles: SIGNED_IN,
    summary: "Every client's traffic over a range: bytes up and down per point, summed over the nodes",
    query: { range: `${USAGE_RANGE_NAMES.join(' | ')} (default ${DEFAULT_USAGE_RANGE})` },
    response: UsageSeriesDto,
  })
  traffic(@Query() query: UsageQueryDto) {
    return this.usage.total(query.range ?? DEFAULT_USAGE_RANGE);
  }
}
