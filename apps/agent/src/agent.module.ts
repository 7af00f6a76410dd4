import { Module, type DynamicModule } from '@nestjs/common';
import { join } from 'node:path';
import { createSampler } from '#libs/system/sampler.js';
import { AgentService } from './agent.service.js';
import type { AgentConfig } from './config.js';
import { ApplyRecord, CommandRunner, probeHost, WireGuardHost } from './host/index.js';
import { AGENT_CONFIG, HOST_DRIVER, type HostDriver } from './host-driver.js';
import { SYSTEM_SAMPLER } from './system-sampler.js';
import { RuleHitReader } from './host/routing/rule-hits.js';
import { gatherHostFacts } from './host/host-facts.js';
import { readHopCounters } from './host/routing/hop-counters.js';
import { probeThroughRunner } from './work/probe/probe-runner.js';

/** The host drivers behind the agent's seam; every command runs in WARREN_NETNS when set. */
export function createHostDriver(config: AgentConfig): HostDriver {
  const runner = new CommandRunner({ namespace: config.netns });
  const record = new ApplyRecord(join(config.dataDir, 'applied.json'));
  const host = new WireGuardHost({ runner, stateDir: join(config.dataDir, 'host'), record });
  const ruleHits = new RuleHitReader(runner, () => host.hops.table);
  return {
    probe: async () => {
      const probe = await probeHost(runner);
      return { capabilities: probe.capabilities, gaps: probe.gaps };
    },
    apply: (state) => host.apply(state),
    applyDelta: (delta) => host.applyDelta(delta),
    applied: () => record.applied,
    missingInterfaces: () => host.missingInterfaces(),
    // The host's reader: its readings also serve the quota correction (wireguard-host.ts).
    readCounters: () => host.readCounters(),
    readHopCounters: () => readHopCounters(runner, host.hops.table),
    onCountersReset: (listener) => host.onCountersReset(listener),
    correctQuotas: () => host.correctQuotas(),
    collectState: () => host.collectState(),
    probeOutbound: (job) => probeThroughRunner(runner, join(config.dataDir, 'host', 'probes'), job),
    hostFacts: (capabilities) => gatherHostFacts(runner, capabilities),
    readRuleHits: () => ruleHits.read(),
    ruleHitsDelivered: () => ruleHits.commit(),
  };
}

@Module({})
export class AgentModule {
  static register(config: AgentConfig, host: HostDriver = createHostDriver(config)): DynamicModule {
    return {
      module: AgentModule,
      providers: [
        { provide: AGENT_CONFIG, useValue: config },
        { provide: HOST_DRIVER, useValue: host },
        { provide: SYSTEM_SAMPLER, useValue: createSampler({ diskPath: config.dataDir }) },
        AgentService,
      ],
    };
  }
}
