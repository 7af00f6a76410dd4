import type { Schemas } from '../../api.js';
import {
  AMNEZIA_FIELDS,
  generateAmneziaWith,
  type AmneziaField,
  type AmneziaParams,
} from '../../../../../libs/contracts/amnezia.js';

type Interface = Schemas['InterfaceDto'];
type Node = Schemas['NodeDto'];

/** The form's AmneziaWG inputs, as typed (a cleared input is ''). */
export type AwgValues = Record<AmneziaField, number | string>;

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
  'awg',
];

/** A fresh set within the API's bounds (libs/contracts/amnezia.ts), drawn with the browser's crypto. */
export function generatedAwg(): AmneziaParams {
  return generateAmneziaWith((min, max) => {
    const [random] = crypto.getRandomValues(new Uint32Array(1));
    return min + (random! % (max - min + 1));
  });
}

const LOOPBACK = /^(127\.|localhost$|::1$|\[::1\]$)/i;

/** Whether clients elsewhere cannot reach `host` (127.0.0.0/8, ::1, localhost). */
export function isLoopback(host: string): boolean {
  return LOOPBACK.test(host.trim());
}

/**
 * What clients of a new interface on `nodeId` (none: the local node) dial: the node's address,
 * unless that is a loopback one (the local node's is 127.0.0.1), then the address this panel
 * was reached on.
 */
export function endpointFor(nodes: Node[] | undefined, nodeId: string): string {
  const node = nodes?.find((entry) => (nodeId ? entry.id === nodeId : entry.isLocal));
  return node && !LOOPBACK.test(node.address) ? node.address : window.location.hostname;
}

/** The API's body for the AmneziaWG inputs: numbers where numbers were typed, the rest as typed (the API says what is wrong). */
export function awgBody(awg: AwgValues): AmneziaParams {
  return Object.fromEntries(
    AMNEZIA_FIELDS.map((field) => {
      const value = awg[field];
      return [field, value === '' ? null : Number(value)];
    }),
  ) as unknown as AmneziaParams;
}

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
    // A new interface's endpoint follows its node until typed (interface-modal.tsx).
    endpointHost: entry?.endpointHost ?? '',
    mtu: entry?.mtu ?? 1420,
    dns: entry?.dns ?? ['1.1.1.1'],
    enabled: entry?.enabled ?? true,
    natInterface: entry?.natInterface ?? '',
    awg: (entry?.awg ?? generatedAwg()) as AwgValues,
  };
}

export type InterfaceValues = ReturnType<typeof interfaceValues>;
