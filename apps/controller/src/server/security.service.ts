import { Inject, Injectable, Logger } from '@nestjs/common';
import { WARREN_VERSION } from '#libs/version/warren-version.js';
import type { WarrenConfig } from '../config/config.js';
import type { QueueBackend } from '../queue/queue-backend.js';
import { QUEUE_BACKEND, WARREN_CONFIG } from '../runtime.js';
import { SettingsService } from '../settings/settings.service.js';
import { securityWarnings, type SecurityWarning } from './security-warnings.js';
import { ServerRepository } from './server.repository.js';

/** Gathers the facts the security warnings are made from (security-warnings.ts holds the rules). */
@Injectable()
export class SecurityService {
  private readonly logger = new Logger('security');

  constructor(
    private readonly repository: ServerRepository,
    private readonly settings: SettingsService,
    @Inject(WARREN_CONFIG) private readonly config: WarrenConfig,
    @Inject(QUEUE_BACKEND) private readonly queues: QueueBackend,
  ) {}

  async warnings(): Promise<SecurityWarning[]> {
    const [owners, agents, settings, redisMaxMemory] = await Promise.all([
      this.repository.owners(),
      this.repository.agentVersions(),
      this.settings.get(),
      this.redisMaxMemory(),
    ]);
    return securityWarnings({
      owners,
      agents,
      tlsEnabled: this.config.tls.enabled,
      trustedProxies: this.config.trustedProxies.length,
      allowPrivateTargets: settings.allowPrivateTargets,
      backupIntervalHours: settings.backupIntervalHours,
      panelVersion: WARREN_VERSION,
      redisMaxMemory,
    });
  }

  /** A Redis that does not answer is readiness' concern: the warnings leave it out rather than fail. */
  private async redisMaxMemory(): Promise<number | null> {
    try {
      return await this.queues.memoryLimit();
    } catch (error) {
      this.logger.warn(`could not read the queue store's maxmemory: ${(error as Error).message}`);
      return null;
    }
  }
}
