import { Module } from '@nestjs/common';
import { ResellersModule } from '../resellers/resellers.module.js';
import { AccountsRepository } from './accounts.repository.js';
import { BulkController } from './bulk/bulk.controller.js';
import { BulkJobsRepository } from './bulk/bulk-jobs.repository.js';
import { BulkJobsService } from './bulk/bulk-jobs.service.js';
import { ClientBatchController } from './client-batch.controller.js';
import { ClientBatchService } from './client-batch.service.js';
import { ClientTransferController } from './client-transfer.controller.js';
import { ClientListRepository } from './client-list.repository.js';
import { ClientTotals } from './client-totals.js';
import { CounterCommits } from './counter-commits.js';
import { ClientsController } from './clients.controller.js';
import { InterfaceUsageController } from './interface-usage.controller.js';
import { InterfaceUsageService } from './interface-usage.service.js';
import { InterfaceAccountsRepository } from './interface-accounts.repository.js';
import { InterfaceAccountsService } from './interface-accounts.service.js';
import { ClientsRepository } from './clients.repository.js';
import { ClientsService } from './clients.service.js';
import { DevicesController } from './devices.controller.js';
import { DevicesRepository } from './devices.repository.js';
import { DevicesService } from './devices.service.js';
import { ProfilesRepository } from './profiles.repository.js';
import { ProfilesService } from './profiles.service.js';
import { ProvisioningService } from './provisioning.service.js';
import { TimeTransitionsRepository } from './time-transitions.repository.js';
import { TimeTransitionsScheduler } from './time-transitions.scheduler.js';
import { TimeTransitionsService } from './time-transitions.service.js';
import { ClientExportService } from './transfer/client-export.service.js';
import { ClientImportService } from './transfer/client-import.service.js';
import { TransferRepository } from './transfer/transfer.repository.js';
import { UsageRepository } from './usage.repository.js';
import { UsageService } from './usage.service.js';
import { SharingController } from './sharing/sharing.controller.js';
import { SharingRepository } from './sharing/sharing.repository.js';
import { SharingService } from './sharing/sharing.service.js';
import { UsageHistoryRepository } from './usage-history.repository.js';
import { UsageHistoryScheduler } from './usage-history.scheduler.js';
import { UsageHistoryService } from './usage-history.service.js';

/**
 * Clients, their devices, accounts and profiles, traffic accounting and the scheduled status
 * transitions. Needs the runtime (ORM, queue store) from the global RuntimeModule; the agent link
 * records counters through CounterCommits; the overview reads the total traffic from UsageHistoryService.
 */
@Module({
  imports: [ResellersModule],
  controllers: [
    ClientBatchController,
    ClientTransferController,
    ClientsController,
    DevicesController,
    BulkController,
    SharingController,
    InterfaceUsageController,
  ],
  providers: [
    ClientsRepository,
    ClientListRepository,
    DevicesRepository,
    AccountsRepository,
    ProfilesRepository,
    UsageRepository,
    TimeTransitionsRepository,
    ClientTotals,
    ProvisioningService,
    ClientsService,
    ClientBatchService,
    TransferRepository,
    ClientExportService,
    ClientImportService,
    InterfaceUsageService,
    InterfaceAccountsService,
    InterfaceAccountsRepository,
    DevicesService,
    ProfilesService,
    UsageService,
    CounterCommits,
    TimeTransitionsService,
    TimeTransitionsScheduler,
    BulkJobsRepository,
    BulkJobsService,
    SharingRepository,
    SharingService,
    UsageHistoryRepository,
    UsageHistoryService,
    UsageHistoryScheduler,
  ],
  exports: [
    ClientsService,
    UsageService,
    CounterCommits,
    ProfilesService,
    BulkJobsService,
    ClientListRepository,
    ClientTotals,
    UsageHistoryService,
  ],
})
export class ClientsModule {}
