import { Injectable } from '@nestjs/common';
import type { Job } from 'bullmq';
import { NotificationEvents } from '../notifications/events/notification-events.js';

/**
 * What a backup run tells the operators (docs/notifications.md): done (keyed by the archive's
 * name) or failed (keyed by the run's job and its start), each once. A backup another run held
 * the lock for is no failure of the schedule: it is not told.
 */
@Injectable()
export class BackupNotices {
  constructor(private readonly events: NotificationEvents) {}

  backupDone(name: string, trigger: string | undefined, result: unknown): Promise<void> {
    const sizeBytes = (result as { sizeBytes?: unknown } | undefined)?.sizeBytes;
    return this.events.record(null, {
      kind: 'backup.done',
      crossing: `backup.done:${name}`,
      subject: { type: 'backup', id: name, name },
      details: { trigger: trigger ?? null, sizeBytes: typeof sizeBytes === 'number' ? sizeBytes : null },
    });
  }

  backupFailed(job: Job, error: string): Promise<void> {
    return this.events.record(null, {
      kind: 'backup.failed',
      crossing: `backup.failed:${job.id}:${job.processedOn ?? job.timestamp}`,
      subject: { type: 'backup', id: String(job.id), name: `backup run ${job.id}` },
      details: { trigger: (job.data as { trigger?: string }).trigger ?? null, error: error.slice(0, 300) },
    });
  }
}
