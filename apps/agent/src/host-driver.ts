import type { Capabilities } from '#libs/contracts/agent-link.js';
import type { DesiredState } from '#libs/contracts/desired-state.js';
import type { HostState } from '#libs/contracts/host-state.js';
import type { ApplyResult } from '#libs/contracts/node-queue.js';
import type { AppliedRecord, PeerReading } from './host/index.js';

/** What the agent needs from its host: the seam between the agent's work and host/ drivers. */
export interface HostDriver {
  probe(): Promise<{ capabilities: Capabilities; gaps: string[] }>;
  /** Reconciles the host and records the apply; an older revision than the newest applied is not applied over it. */
  apply(state: DesiredState): Promise<ApplyResult>;
  /** The record of what the host has applied. */
  applied(): Readonly<AppliedRecord>;
  /** Managed interfaces that should exist but do not (deleted behind the agent's back). */
  missingInterfaces(): Promise<string[]>;
  readCounters(): Promise<PeerReading[]>;
  /** What the agent manages on the host, for a backup. */
  collectState(): Promise<HostState>;
}

export const HOST_DRIVER = Symbol('HOST_DRIVER');
export const AGENT_CONFIG = Symbol('AGENT_CONFIG');
