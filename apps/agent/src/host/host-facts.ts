import { readFile } from 'node:fs/promises';
import {
  arch,
  availableParallelism,
  freemem,
  hostname,
  loadavg,
  release,
  totalmem,
  type as osType,
  uptime,
} from 'node:os';
import type { Capabilities } from '#libs/contracts/agent-link.js';
import { MAX_TOOL_VERSION_TEXT, type NodeProbeAnswer } from '#libs/contracts/node-probe.js';
import { MAX_CORES, MAX_LOAD } from '#libs/contracts/system.js';
import { parseMeminfo } from '#libs/system/proc.js';
import type { CommandRunner } from './command-runner.js';

/**
 * What a node probe reports about the host (libs/contracts/node-probe.ts), gathered only when the
 * panel asks: kernel, OS, CPUs, memory, uptime and load from the host itself (a network namespace
 * shares them), the tools' versions by running them through the agent's CommandRunner like every
 * other host command. Nothing here throws: a tool that is missing or says nothing is null.
 */
export async function gatherHostFacts(
  runner: CommandRunner,
  capabilities: Capabilities,
): Promise<Omit<NodeProbeAnswer, 'agentVersion' | 'answeredAt'>> {
  const [os, memory, kernelModule, tools, wireguardGo, nft] = await Promise.all([
    osName(),
    memoryFacts(),
    readFile('/sys/module/wireguard/version', 'utf8').then(firstLine, () => null),
    toolVersion(runner, 'wg', ['--version']),
    toolVersion(runner, 'wireguard-go', ['--version']),
    toolVersion(runner, 'nft', ['--version']),
  ]);
  return {
    host: {
      kernel: release().slice(0, 200),
      os,
      arch: arch().slice(0, 40),
      hostname: hostname().slice(0, 255),
      cpus: Math.min(MAX_CORES, Math.max(1, availableParallelism())),
      ...memory,
      uptimeSeconds: Math.max(0, Math.round(uptime())),
      load: loadavg().map((value) => Math.min(MAX_LOAD, Math.max(0, Math.round(value * 100) / 100))),
    },
    wireguard: {
      implementation: capabilities.wireguardKernel ? 'kernel' : capabilities.wireguardGo ? 'wireguard-go' : 'none',
      kernelModule,
      tools,
      wireguardGo,
    },
    nft,
  };
}

function firstLine(text: string): string | null {
  const line = text
    .split('\n')
    .map((part) => part.trim())
    .find((part) => part.length > 0);
  // Only printable text: a tool's banner is shown as it is, in the panel and in JSON.
  return line ? line.replace(/[^\x20-\x7e]/g, '').slice(0, MAX_TOOL_VERSION_TEXT) || null : null;
}

/** The first line a tool prints for its version (some print it on stderr), or null when it does not run. */
async function toolVersion(runner: CommandRunner, program: string, args: string[]): Promise<string | null> {
  try {
    const { stdout, stderr } = await runner.run(program, args, { timeoutMs: 5000 });
    return firstLine(stdout) ?? firstLine(stderr);
  } catch {
    return null;
  }
}

async function osName(): Promise<string> {
  for (const file of ['/etc/os-release', '/usr/lib/os-release']) {
    const text = await readFile(file, 'utf8').catch(() => '');
    const match = /^PRETTY_NAME=(?:"([^"\n]*)"|(.*))$/m.exec(text);
    const name = (match?.[1] ?? match?.[2])?.trim();
    if (name) return name.slice(0, 200);
  }
  return osType().slice(0, 200);
}

/** MemAvailable from /proc/meminfo (what the system sample shows too); os.freemem() where it cannot be read. */
async function memoryFacts(): Promise<{ memoryTotalBytes: number; memoryAvailableBytes: number }> {
  try {
    const info = parseMeminfo(await readFile('/proc/meminfo', 'utf8'));
    return { memoryTotalBytes: info.memoryTotal, memoryAvailableBytes: info.memoryAvailable };
  } catch {
    return { memoryTotalBytes: totalmem(), memoryAvailableBytes: freemem() };
  }
}
