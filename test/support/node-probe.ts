import type { NodeProbeAnswer } from '#libs/contracts/node-probe.js';

/** What a stand-in agent (node-queue.ts) answers to a node probe: fixed host facts, the version given. */
export function nodeProbeAnswer(agentVersion: string): NodeProbeAnswer {
  return {
    agentVersion,
    answeredAt: Date.now(),
    host: {
      kernel: '6.8.0-test',
      os: 'Test Linux 1',
      arch: 'x64',
      hostname: 'edge',
      cpus: 2,
      memoryTotalBytes: 2 ** 31,
      memoryAvailableBytes: 2 ** 30,
      uptimeSeconds: 3600,
      load: [0.1, 0.2, 0.3],
    },
    wireguard: {
      implementation: 'wireguard-go',
      kernelModule: null,
      tools: 'wireguard-tools v1.0.20210914',
      wireguardGo: 'wireguard-go v0.0.20230223',
    },
    nft: 'nftables v1.0.9 (Old Doc Yago)',
  };
}
