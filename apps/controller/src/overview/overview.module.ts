import { Module } from '@nestjs/common';
import { ClientsModule } from '../clients/clients.module.js';
import { SystemModule } from '../system/system.module.js';
import { InventoryFoldScheduler } from './inventory-fold.scheduler.js';
import { InventoryRepository } from './inventory.repository.js';
import { OverviewController } from './overview.controller.js';
import { OverviewService } from './overview.service.js';

/** GET /api/overview/full and the inventory counters behind it, and the total traffic. Exports nothing. */
@Module({
  imports: [SystemModule, ClientsModule],
  controllers: [OverviewController],
  providers: [InventoryRepository, OverviewService, InventoryFoldScheduler],
})
export class OverviewModule {}
