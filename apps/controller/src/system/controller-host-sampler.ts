import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { SystemService } from './system.service.js';

export const CONTROLLER_SAMPLE_EVERY_MS = 2000;

/**
 * Samples the controller's own host every 2 s, as an agent does for its node. The timer is
 * unref'd (it never keeps the process alive) and a tick is skipped while the previous one is
 * still reading, so a slow disk cannot pile samples up.
 */
@Injectable()
export class ControllerHostSampler implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('system');
  private timer?: NodeJS.Timeout;
  private busy = false;
  private failing = false;

  constructor(private readonly system: SystemService) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.tick(), CONTROLLER_SAMPLE_EVERY_MS);
    this.timer.unref();
    void this.tick();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  private async tick(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      await this.system.sampleControllerHost();
      this.failing = false;
    } catch (error) {
      // Logged once per outage, not every 2 s.
      if (!this.failing) this.logger.warn(`sampling the controller's host failed: ${(error as Error).message}`);
      this.failing = true;
    } finally {
      this.busy = false;
    }
  }
}
