import { Module } from '@nestjs/common';
import { SystemModule } from '../system/system.module.js';
import { InventoryFoldScheduler } from './inventory-fold.scheduler.js';
import { InventoryRepository } from './inventory.repository.js';
import { OverviewController } from './overview.controller.js';
import { OverviewService } from './overview.service.js';

/** GET /api/overview/full and the inventory counters behind it. Exports nothing. */
@Module({
  imports: [SystemModule],
  controllers: [OverviewController],
  providers: [InventoryRepository, OverviewService, InventoryFoldScheduler],
})
export class OverviewModule {}
