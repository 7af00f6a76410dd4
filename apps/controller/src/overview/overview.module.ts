import { Module } from '@nestjs/common';
import { ResellersModule } from '../resellers/resellers.module.js';
import { ClientsModule } from '../clients/clients.module.js';
import { SystemModule } from '../system/system.module.js';
import { OperatorOverviewService } from './operator-overview.service.js';
import { InventoryFoldScheduler } from './inventory-fold.scheduler.js';
import { InventoryRepository } from './inventory.repository.js';
import { OverviewController } from './overview.controller.js';
import { OverviewService } from './overview.service.js';

/** GET /api/overview/full, GET /api/overview, the inventory counters behind them, and the total traffic. Exports nothing. */
@Module({
  imports: [SystemModule, ResellersModule, ClientsModule],
  controllers: [OverviewController],
  providers: [InventoryRepository, OverviewService, OperatorOverviewService, InventoryFoldScheduler],
})
export class OverviewModule {}
