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
  /** Its position among hosts of equal priority (absent: 0). */
  position?: number;
  /** Its host group's position; null or absent: in no group (after every grouped host). */
  groupPosition?: number | null;
  /** The client groups its host group is tied to; empty or absent: every client. */
  clientGroups?: readonly string[] | null;
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
 * The addresses a profile is rendered for: one per enabled host the client may carry (a host of
 * a group tied to client groups only for a client in one of them; every other host for all), in
 * the groups' order (ungrouped hosts last), then highest priority first, then by position, then
 * by name (then id, so the order is total and profiles keep stable positions); or, when none is
 * left, the interface's own endpointHost:listenPort under the name `default`. Without
 * `clientGroups` (no client in view) every enabled host counts.
 */
export function dialTargets(
  iface: DialInterface,
  hosts: readonly DialHost[],
  clientGroups?: readonly string[],
): DialTarget[] {
  const enabled = hosts
    .filter((host) => host.enabled && carries(host, clientGroups))
    .sort(
      (a, b) =>
        groupRank(a) - groupRank(b) ||
        b.priority - a.priority ||
        (a.position ?? 0) - (b.position ?? 0) ||
        compare(a.name, b.name) ||
        compare(a.id, b.id),
    );
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

function carries(host: DialHost, clientGroups: readonly string[] | undefined): boolean {
  const tied = host.clientGroups ?? [];
  return clientGroups === undefined || tied.length === 0 || tied.some((group) => clientGroups.includes(group));
}

function groupRank(host: DialHost): number {
  return host.groupPosition ?? Number.MAX_SAFE_INTEGER;
}

/** Code-unit order, not locale order: the same on every machine. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
