import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module.js';
import { SettingsModule } from '../settings/settings.module.js';
import { ControllerHostSampler } from './controller-host-sampler.js';
import { SystemHistoryMaintenance } from './history-maintenance.service.js';
import { SystemHistoryScheduler } from './history-maintenance.scheduler.js';
import { SystemHistoryRepository } from './history.repository.js';
import { NodeFactsRepository } from './node-facts.repository.js';
import { SampleWriter } from './sample-writer.js';
import { SystemController } from './system.controller.js';
import { SystemService } from './system.service.js';
import { TableUpkeep } from './table-upkeep.js';
import { TableUpkeepScheduler } from './table-upkeep.scheduler.js';

/**
 * Host state and history. Exports SystemService alone: the agent link records nodes' samples
 * through it. (nodes/ also uses agent-state.ts, a plain function, not a provider.)
 */
@Module({
  imports: [AuditModule, SettingsModule],
  controllers: [SystemController],
  providers: [
    SystemHistoryRepository,
    NodeFactsRepository,
    SampleWriter,
    SystemService,
    ControllerHostSampler,
    SystemHistoryMaintenance,
    SystemHistoryScheduler,
    TableUpkeep,
    TableUpkeepScheduler,
  ],
  exports: [SystemService],
})
export class SystemModule {}
