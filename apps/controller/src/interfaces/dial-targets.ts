/** What a profile needs from an interface to know where clients dial. */
export interface DialInterface {
  endpointHost: string;
  listenPort: number;
}

/** What it needs from a host row. */
export interface DialHost {
  id: string;
  name: string;
  address: string;
  /** 0 means the interface's listen port. */
  port: number;
  priority: number;
  enabled: boolean;
}

export interface DialTarget {
  /** null for the interface's own endpoint, used when it has no enabled host. */
  hostId: string | null;
  hostName: string;
  address: string;
  port: number;
  /** `address:port` as a WireGuard Endpoint line wants it (IPv6 in brackets). */
  endpoint: string;
}

export const DEFAULT_HOST_NAME = 'default';

/**
 * The addresses a profile is rendered for: one per enabled host, highest priority first, then
 * by name (then id, so the order is total and profiles keep stable positions); or, when the
 * interface has no enabled host, its own endpointHost:listenPort under the name `default`.
 */
export function dialTargets(iface: DialInterface, hosts: readonly DialHost[]): DialTarget[] {
  const enabled = hosts
    .filter((host) => host.enabled)
    .sort((a, b) => b.priority - a.priority || compare(a.name, b.name) || compare(a.id, b.id));
  if (enabled.length === 0) {
    return [target(null, DEFAULT_HOST_NAME, iface.endpointHost, iface.listenPort)];
  }
  return enabled.map((host) =>
    target(host.id, host.name, host.address, host.port === 0 ? iface.listenPort : host.port),
  );
}

function target(hostId: string | null, hostName: string, address: string, port: number): DialTarget {
  return { hostId, hostName, address, port, endpoint: `${address.includes(':') ? `[${address}]` : address}:${port}` };
}

/** Code-unit order, not locale order: the same on every machine. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
