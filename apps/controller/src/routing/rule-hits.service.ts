import { Injectable } from '@nestjs/common';
import { RoutingRepository } from './routing.repository.js';

/** Adds up the rule-hit deltas an agent reports (its `rule-hits` link message) into the rules' counters. */
@Injectable()
export class RuleHitsService {
  constructor(private readonly routing: RoutingRepository) {}

  async record(nodeId: string, rules: readonly { id: string; packets: number }[]): Promise<void> {
    await this.routing.addHits(nodeId, rules);
  }
}
