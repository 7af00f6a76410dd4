import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { QueueBackend } from '../queue/queue-backend.js';
import { RecurringJob } from '../queue/recurring-job.js';
import { QUEUE_BACKEND } from '../runtime.js';
import { SettingsService } from '../settings/settings.service.js';
import { BackupJobs } from './backup-jobs.js';
import { BackupsRepository } from './backups.repository.js';
import { BackupsService } from './backups.service.js';

export const BACKUP_SCHEDULE_QUEUE = 'backups.schedule';
export const BACKUP_DUE_JOB = 'backups.due';
/** How often the schedule is checked; a backup is due when the interval has passed since the last one. */
export const BACKUP_CHECK_EVERY_MS = 5 * 60_000;

/**
 * Scheduled backups. Rather than a job scheduler whose period follows the setting (and whose
 * first run would fall at every start), a check runs every 5 minutes, once per tick across
 * controllers, and starts a backup when `backupIntervalHours` have passed since the newest backup
 * (or, with none yet, since the panel was installed). A changed interval, a restart or a missed
 * tick then need no rescheduling: the next check decides from what is on disk.
 */
@Injectable()
export class BackupScheduler implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly job: RecurringJob;
  private readonly logger = new Logger('backups');

  constructor(
    @Inject(QUEUE_BACKEND) queues: QueueBackend,
    private readonly settings: SettingsService,
    private readonly backups: BackupsService,
    private readonly jobs: BackupJobs,
    private readonly repository: BackupsRepository,
  ) {
    this.job = new RecurringJob(queues, this.logger, {
      queue: BACKUP_SCHEDULE_QUEUE,
      name: BACKUP_DUE_JOB,
      everyMs: BACKUP_CHECK_EVERY_MS,
      what: 'scheduled backups',
      run: () => this.runIfDue(new Date()),
    });
  }

  onApplicationBootstrap(): void {
    this.job.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.job.stop();
  }

  /** Starts a backup when one is due; says what it did. */
  async runIfDue(now: Date): Promise<'started' | 'off' | 'not due' | 'running'> {
    const { backupIntervalHours } = await this.settings.get();
    if (backupIntervalHours === 0) return 'off';
    const latest = (await this.backups.list()).backups[0];
    const since = latest?.createdAt ?? (await this.repository.installedAt());
    if (since && now.getTime() - since.getTime() < backupIntervalHours * 3_600_000) return 'not due';
    if (await this.jobs.current()) return 'running';
    await this.jobs.start('backup', { trigger: 'schedule' });
    this.logger.log('scheduled backup started');
    return 'started';
  }
}
