import { z } from 'zod';
import { MAX_VERSION_TEXT } from './agent-link.js';
import { byteCount, MAX_TIMESTAMP_MS, timestampMs } from './numbers.js';
import { storableText } from './storable-text.js';
import { MAX_CORES, MAX_LOAD } from './system.js';

/**
 * A node probe (`POST /api/nodes/{id}/probe`): a job on the node's own queue (the same path as
 * applies and hop probes), answered by its agent with what it runs and what its host is. The
 * panel times the round trip; the agent gathers the facts only when asked.
 */
export const NODE_PROBE_JOB = 'node-probe';

export const nodeProbeJobSchema = z.object({
  /** When the panel queued it, by the panel's clock (the agent echoes nothing of it: the panel times). */
  sentAt: timestampMs,
});
export type NodeProbeJob = z.infer<typeof nodeProbeJobSchema>;

/** The longest tool version line kept (`wg --version` prints a URL after the version). */
export const MAX_TOOL_VERSION_TEXT = 120;
const toolVersion = storableText(MAX_TOOL_VERSION_TEXT).nullable();

export const WIREGUARD_IMPLEMENTATIONS = ['kernel', 'wireguard-go', 'none'] as const;

export const nodeProbeAnswerSchema = z.object({
  /** The agent's own version (the package it runs from). */
  agentVersion: storableText(MAX_VERSION_TEXT),
  /** When the agent answered, by its clock (the panel compares it with its own). */
  answeredAt: timestampMs,
  host: z.object({
    /** `uname -r`. */
    kernel: storableText(200),
    /** PRETTY_NAME of /etc/os-release, else the OS type. */
    os: storableText(200),
    arch: storableText(40),
    hostname: storableText(255),
    cpus: z.number().int().min(1).max(MAX_CORES),
    memoryTotalBytes: byteCount,
    memoryAvailableBytes: byteCount,
    uptimeSeconds: z
      .number()
      .nonnegative()
      .max(MAX_TIMESTAMP_MS / 1000),
    load: z.array(z.number().nonnegative().max(MAX_LOAD)).length(3),
  }),
  wireguard: z.object({
    /** What new interfaces use: the kernel module when it works, else wireguard-go, else none. */
    implementation: z.enum(WIREGUARD_IMPLEMENTATIONS),
    /** /sys/module/wireguard/version when the module is loaded (absent when built in or not loaded). */
    kernelModule: toolVersion,
    /** `wg --version`, first line; null when not installed. */
    tools: toolVersion,
    /** `wireguard-go --version`, first line; null when not installed. */
    wireguardGo: toolVersion,
  }),
  /** `nft --version`; null when not installed. */
  nft: toolVersion,
});
export type NodeProbeAnswer = z.infer<typeof nodeProbeAnswerSchema>;
