import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { QueueBackend } from '../queue/queue-backend.js';
import { RecurringJob } from '../queue/recurring-job.js';
import { QUEUE_BACKEND } from '../runtime.js';
import { ENFORCEMENT_RUN, TimeTransitionsService } from './time-transitions.service.js';

export const SYSTEM_QUEUE = 'system';
export const TIME_TRANSITIONS_JOB = ENFORCEMENT_RUN;
export const TIME_TRANSITIONS_EVERY_MS = 30_000;

/** Runs applyTimeTransitions every 30 s on the system queue, once per tick across replicas. */
@Injectable()
export class TimeTransitionsScheduler implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly job: RecurringJob;

  constructor(@Inject(QUEUE_BACKEND) queues: QueueBackend, transitions: TimeTransitionsService) {
    this.job = new RecurringJob(queues, new Logger('clients'), {
      queue: SYSTEM_QUEUE,
      name: TIME_TRANSITIONS_JOB,
      everyMs: TIME_TRANSITIONS_EVERY_MS,
      what: 'client expiry and reset cycles',
      run: () => transitions.applyTimeTransitions(new Date()),
    });
  }

  onApplicationBootstrap(): void {
    this.job.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.job.stop();
  }
}
