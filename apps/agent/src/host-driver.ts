import type { Capabilities } from '#libs/contracts/agent-link.js';
import type { DesiredDelta } from '#libs/contracts/desired-delta.js';
import type { DesiredState } from '#libs/contracts/desired-state.js';
import type { HostState } from '#libs/contracts/host-state.js';
import type { ApplyResult } from '#libs/contracts/node-queue.js';
import type { NodeProbeAnswer } from '#libs/contracts/node-probe.js';
import type { ProbeJob, ProbeResult } from '#libs/contracts/routing.js';
import type { AppliedRecord, PeerReading } from './host/index.js';
import type { CountersResetListener } from './host/counters.js';
import type { HopReading } from './host/routing/hop-counters.js';
import type { DeltaOutcome } from './host/wireguard-host.js';

/** What the agent needs from its host: the seam between the agent's work and host/ drivers. */
export interface HostDriver {
  probe(): Promise<{ capabilities: Capabilities; gaps: string[] }>;
  /** Reconciles the host and records the apply; an older revision than the newest applied is not applied over it. */
  apply(state: DesiredState): Promise<ApplyResult>;
  /** Applies a delta on top of the last applied state, or answers a gap (host/wireguard-host.ts). */
  applyDelta(delta: DesiredDelta): Promise<DeltaOutcome>;
  /** The record of what the host has applied. */
  applied(): Readonly<AppliedRecord>;
  /** Managed interfaces that should exist but do not (deleted behind the agent's back). */
  missingInterfaces(): Promise<string[]>;
  readCounters(): Promise<readonly PeerReading[]>;
  /**
   * The hops' traffic counters, absolute (host/routing/hop-counters.ts); null when they could not
   * be read this time. Drivers that run no hops omit it.
   */
  readHopCounters?(): Promise<HopReading[] | null>;
  /**
   * Registers who takes an interface's last reading when a restart re-creates its link (the
   * counter spool: its counters start from 0 again). Drivers that never re-create links omit it.
   */
  onCountersReset?(listener: CountersResetListener): void;
  /** Corrects clients' kernel quotas from WireGuard's counters (each report round); the failure, or null. */
  correctQuotas(): Promise<string | null>;
  /** What the agent manages on the host, for a backup. */
  collectState(): Promise<HostState>;
  /** Probes a hop from inside the node's namespace; never rejects. */
  probeOutbound(job: ProbeJob): Promise<ProbeResult>;
  /** The host's facts for a node probe (kernel, OS, tools' versions, load); never rejects. */
  hostFacts(capabilities: Capabilities): Promise<Omit<NodeProbeAnswer, 'agentVersion' | 'answeredAt'>>;
  /** Packets per routing rule id since the previous call (none moved: empty). */
  readRuleHits(): Promise<{ id: string; packets: number }[]>;
  /** The hits last read reached the controller's link: the next read counts from there. */
  ruleHitsDelivered(): void;
}

export const HOST_DRIVER = Symbol('HOST_DRIVER');
export const AGENT_CONFIG = Symbol('AGENT_CONFIG');
