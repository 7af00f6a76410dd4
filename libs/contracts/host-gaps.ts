/**
 * What an agent says its host cannot do (the `gaps` of its hello), each sentence by key: the
 * agent sends the sentence (apps/agent/src/host/capabilities.ts), the web panel knows it by how
 * it begins (hostGapOf) and shows it in the page's language. The WireGuard one goes on with why
 * the kernel module is unavailable.
 */
export const HOST_GAPS = {
  root: 'not running as root: interfaces cannot be created',
  ip: 'iproute2 (ip) not installed: interfaces cannot be created or addressed',
  wg: 'wireguard-tools (wg) not installed: interfaces cannot be configured and counters cannot be read',
  wireguard: 'no WireGuard implementation: the kernel module is unavailable',
  nft: 'nftables (nft) not installed: NAT for tunnel subnets cannot be set up',
  awg: 'AmneziaWG (awg, amneziawg-go) not installed: AmneziaWG interfaces cannot be applied',
  redsocks: 'redsocks not installed: SOCKS5 and HTTP hops cannot carry tunnel traffic',
  shadowsocks: 'shadowsocks-libev (ss-redir, ss-local) not installed: shadowsocks hops cannot run or be probed',
  dnsmasq: 'dnsmasq not installed: routing rules on domains cannot match',
  shaping: 'speed limits cannot be enforced',
} as const;

export type HostGap = keyof typeof HOST_GAPS;

/** The key of a gap sentence an agent sent, or undefined for one this build does not know. */
export function hostGapOf(text: string): HostGap | undefined {
  return (Object.keys(HOST_GAPS) as HostGap[]).find((key) => text.startsWith(HOST_GAPS[key]));
}
