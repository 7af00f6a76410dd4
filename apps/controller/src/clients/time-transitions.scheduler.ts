import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { QueueBackend } from '../queue/queue-backend.js';
import { RecurringJob } from '../queue/recurring-job.js';
import type { WarrenConfig } from '../config/config.js';
import { QUEUE_BACKEND, WARREN_CONFIG } from '../runtime.js';
import { ENFORCEMENT_RUN, TimeTransitionsService } from './time-transitions.service.js';

export const SYSTEM_QUEUE = 'system';
export const TIME_TRANSITIONS_JOB = ENFORCEMENT_RUN;
/** Runs applyTimeTransitions every 30 s (WARREN_TIME_TRANSITIONS_MS) on the system queue, once per tick across replicas. */
@Injectable()
export class TimeTransitionsScheduler implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly job: RecurringJob;

  constructor(
    @Inject(QUEUE_BACKEND) queues: QueueBackend,
    @Inject(WARREN_CONFIG) config: WarrenConfig,
    transitions: TimeTransitionsService,
  ) {
    this.job = new RecurringJob(queues, new Logger('clients'), {
      queue: SYSTEM_QUEUE,
      name: TIME_TRANSITIONS_JOB,
      everyMs: config.intervals.timeTransitionsMs,
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
