import { Controller, Query } from '@nestjs/common';
import { CLIENT_READERS, SIGNED_IN } from '#libs/contracts/user-roles.js';
import { CallerScope, type OperatorScope } from '../auth/operator-scope.js';
import { OperatorOverviewDto } from './dto/operator-overview.response.js';
import { OperatorOverviewService } from './operator-overview.service.js';
import { Route } from '../http/route.decorator.js';
import { OverviewDto } from './dto/overview.response.js';
import { OverviewService } from './overview.service.js';
import { UsageQueryDto, UsageSeriesDto } from '../clients/dto/usage.dto.js';
import { UsageHistoryService } from '../clients/usage-history.service.js';
import { DEFAULT_USAGE_RANGE, USAGE_RANGE_NAMES } from '../clients/usage-tiers.js';

/**
 * The dashboard's one call (docs/overview.md): the panel's staff read it whole (it shows no
 * secret); `GET /api/overview` is every role's own view, a reseller's scoped to their clients.
 */
@Controller()
export class OverviewController {
  constructor(
    private readonly overview: OverviewService,
    private readonly operatorOverview: OperatorOverviewService,
    private readonly usage: UsageHistoryService,
  ) {}

  @Route({
    method: 'GET',
    path: 'overview',
    group: 'overview',
    roles: CLIENT_READERS,
    summary:
      "The caller's clients by status and their traffic; for a reseller their own, their traffic pool and the room left under each ceiling",
    response: OperatorOverviewDto,
  })
  mine(@CallerScope() scope: OperatorScope) {
    return this.operatorOverview.overview(scope);
  }

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
