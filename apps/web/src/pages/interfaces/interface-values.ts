import type { Schemas } from '../../api.js';

type Interface = Schemas['InterfaceDto'];

export const FIELDS = [
  'name',
  'nodeId',
  'mode',
  'listenPort',
  'subnet',
  'endpointHost',
  'mtu',
  'dns',
  'natInterface',
  'enabled',
];

/** The first port from 51820 up that no interface listens on (the interfaces of all nodes: one list, one port each). */
function freePort(interfaces: Pick<Interface, 'listenPort'>[]): number {
  const used = new Set(interfaces.map((entry) => entry.listenPort));
  let port = 51820;
  while (used.has(port) && port < 65535) port++;
  return port;
}

/** The first 10.N.0.0/24 from 10.8 up that no interface's subnet overlaps (any prefix, compared on the second octet). */
function freeSubnet(interfaces: Pick<Interface, 'subnet'>[]): string {
  const overlaps = (n: number) =>
    interfaces.some((entry) => {
      const [address, bits] = entry.subnet.split('/');
      const [a, b] = (address ?? '').split('.').map(Number);
      if (a !== 10) return false;
      const prefix = Number(bits);
      // A /8 covers every 10.N; a /9../15 covers a range of N; /16 and longer only its own N.
      const span = prefix >= 16 ? 1 : 2 ** (16 - prefix);
      const start = Math.floor((b ?? 0) / span) * span;
      return n >= start && n < start + span;
    });
  let n = 8;
  while (overlaps(n) && n < 255) n++;
  return `10.${n}.0.0/24`;
}

/** The form's starting values: the interface's, or for a new one a port and subnet that none of `taken` uses. */
export function interfaceValues(entry: Interface | undefined, taken: Interface[]) {
  return {
    name: entry?.name ?? '',
    nodeId: entry?.nodeId ?? '',
    mode: entry?.mode ?? 'standard',
    listenPort: entry?.listenPort ?? freePort(taken),
    subnet: entry?.subnet ?? freeSubnet(taken),
    endpointHost: entry?.endpointHost ?? window.location.hostname,
    mtu: entry?.mtu ?? 1420,
    dns: entry?.dns ?? ['1.1.1.1'],
    enabled: entry?.enabled ?? true,
  };
}

export type InterfaceValues = ReturnType<typeof interfaceValues>;
