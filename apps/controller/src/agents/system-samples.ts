import { Injectable } from '@nestjs/common';
import type { SystemSample } from '#libs/contracts/system.js';

/**
 * Where agents' system samples go. A seam until the system module's history store takes them:
 * it keeps the latest sample per node.
 */
@Injectable()
export class SystemSamples {
  private readonly latest = new Map<string, SystemSample>();

  record(nodeId: string, sample: SystemSample): void {
    this.latest.set(nodeId, sample);
  }

  latestOf(nodeId: string): SystemSample | undefined {
    return this.latest.get(nodeId);
  }
}
