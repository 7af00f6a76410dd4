import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { QueueBackend } from '../queue/queue-backend.js';
import { RecurringJob } from '../queue/recurring-job.js';
import { QUEUE_BACKEND } from '../runtime.js';
import { InventoryRepository } from './inventory.repository.js';

export const INVENTORY_QUEUE = 'overview';
export const INVENTORY_FOLD_JOB = 'overview.fold-counters';
/**
 * Reads sum the deltas not folded yet, so this only bounds how many there are: a counter batch
 * or a client write appends a few rows, so a fold every 10 s keeps them to a few hundred.
 */
export const INVENTORY_FOLD_EVERY_MS = 10_000;

/** Folds the inventory deltas every 10 s, once per tick across replicas (its own queue: see RecurringJob). */
@Injectable()
export class InventoryFoldScheduler implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly job: RecurringJob;

  constructor(@Inject(QUEUE_BACKEND) queues: QueueBackend, inventory: InventoryRepository) {
    this.job = new RecurringJob(queues, new Logger('overview'), {
      queue: INVENTORY_QUEUE,
      name: INVENTORY_FOLD_JOB,
      everyMs: INVENTORY_FOLD_EVERY_MS,
      what: 'folding the inventory counters',
      run: () => inventory.fold(),
    });
  }

  onApplicationBootstrap(): void {
    this.job.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.job.stop();
  }
}
