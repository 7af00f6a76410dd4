import { Module } from '@nestjs/common';
import { ResellersModule } from '../resellers/resellers.module.js';
import { SystemModule } from '../system/system.module.js';
import { OperatorOverviewService } from './operator-overview.service.js';
import { InventoryFoldScheduler } from './inventory-fold.scheduler.js';
import { InventoryRepository } from './inventory.repository.js';
import { OverviewController } from './overview.controller.js';
import { OverviewService } from './overview.service.js';

/** GET /api/overview/full, GET /api/overview and the inventory counters behind them. Exports nothing. */
@Module({
  imports: [SystemModule, ResellersModule],
  controllers: [OverviewController],
  providers: [InventoryRepository, OverviewService, OperatorOverviewService, InventoryFoldScheduler],
})
export class OverviewModule {}
