import { Logger } from '@nestjs/common';

/** Per node, a refusal is logged at once and then at most once a minute, with how many there were. */
const QUIET_MS = 60_000;

/**
 * Logs what a node's agent sent that was refused, naming the node, without letting an agent that
 * sends nothing but refused frames fill the controller's log.
 */
export class RefusalLog {
  private readonly logger = new Logger('agent-link');
  private readonly nodes = new Map<string, { loggedAt: number; unlogged: number }>();

  refused(nodeId: string, reason: string): void {
    const now = Date.now();
    const entry = this.nodes.get(nodeId);
    if (entry && now - entry.loggedAt < QUIET_MS) {
      entry.unlogged++;
      return;
    }
    const more = entry?.unlogged ? ` (and ${entry.unlogged} more refused since the last report)` : '';
    this.logger.warn(`node ${nodeId}: refused a message: ${reason}${more}`);
    this.nodes.set(nodeId, { loggedAt: now, unlogged: 0 });
  }
}
