import { Module } from '@nestjs/common';
import { SettingsModule } from '../settings/settings.module.js';
import { WARREN_CONFIG } from '../runtime.js';
import type { WarrenConfig } from '../config/config.js';
import { BackupJobs } from './backup-jobs.js';
import { BackupRunner } from './backup-runner.js';
import { BackupScheduler } from './backup.scheduler.js';
import { BackupStore } from './backup-store.js';
import { BackupsController } from './backups.controller.js';
import { BackupNotices } from './backup-notices.js';
import { BackupsRepository } from './backups.repository.js';
import { BackupsService } from './backups.service.js';
import { HostStateCollector } from './host-state-collector.js';

/**
 * Backups and restores (docs/backups.md). Exports BackupStore (the overview shows the last
 * backup) and BackupJobs (the Telegram bot hears of each new archive).
 */
@Module({
  imports: [SettingsModule],
  controllers: [BackupsController],
  providers: [
    {
      provide: BackupStore,
      inject: [WARREN_CONFIG],
      useFactory: (config: WarrenConfig) => new BackupStore(config.backupDir),
    },
    BackupsRepository,
    HostStateCollector,
    BackupRunner,
    BackupJobs,
    BackupNotices,
    BackupsService,
    BackupScheduler,
  ],
  exports: [BackupStore, BackupJobs],
})
export class BackupsModule {}
