import { z } from 'zod';
import { desiredOutboundSchema, desiredRoutingSchema } from './routing.js';
import { TUNNEL_NAME, TUNNEL_NAME_RULE, UPLINK_NAME, UPLINK_NAME_RULE } from './interface-names.js';

/**
 * What a node must look like, as the controller sends it in an `apply` job: the whole state, not
 * a list of edits, so applying it twice (or an older copy after a newer one is refused) is safe.
 */

const key = z.string().regex(/^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw480]=$/, 'a WireGuard key (base64 of 32 bytes)');
const ipv4 = z
  .string()
  .regex(/^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/, 'an IPv4 address');
/** A tunnel's host interface name, as the panel allows them (interface-names.ts). */
export const interfaceName = z.string().regex(TUNNEL_NAME, `an interface name (${TUNNEL_NAME_RULE})`);

export const desiredPeerSchema = z.object({
  publicKey: key,
  presharedKey: key.nullable(),
  /** The device's tunnel address; routed to this peer only, as a /32. */
  ip: ipv4,
});
export type DesiredPeer = z.infer<typeof desiredPeerSchema>;

/**
 * A client's speed limit on one interface (docs/agent-host.md, "Speed limits"): its devices'
 * addresses there share one class of `rateBitsPerSec` per direction, download (to those
 * addresses) and upload (from them) each limited on their own. Clients without a limit are absent.
 */
export const desiredSpeedLimitSchema = z.object({
  /** Which client: the key that keeps its classes across applies (a change of rate is made in place). */
  clientId: z.uuid(),
  /** IP bits per second, each direction; at most what tc's 64-bit rate holds with room (2^53). */
  rateBitsPerSec: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  /** Its devices' tunnel addresses on this interface (peers' `ip`). */
  ips: z.array(ipv4).min(1),
});
export type DesiredSpeedLimit = z.infer<typeof desiredSpeedLimitSchema>;

export const amneziaSchema = z.object({
  jc: z.number().int(),
  jmin: z.number().int(),
  jmax: z.number().int(),
  s1: z.number().int(),
  s2: z.number().int(),
  h1: z.number().int(),
  h2: z.number().int(),
  h3: z.number().int(),
  h4: z.number().int(),
});

export const desiredInterfaceSchema = z.object({
  /** Host interface name; unique on the node. */
  name: interfaceName,
  mode: z.enum(['standard', 'amnezia']),
  privateKey: key,
  listenPort: z.number().int().min(1).max(65535),
  /** The server's own address on the tunnel with the subnet's prefix, e.g. 10.8.0.1/24. */
  address: z.string().regex(/^[\d.]+\/\d{1,2}$/, 'an IPv4 address with prefix length'),
  /** The tunnel network, e.g. 10.8.0.0/24 (what NAT masquerades). */
  subnet: z.string().regex(/^[\d.]+\/\d{1,2}$/, 'an IPv4 network in CIDR form'),
  mtu: z.number().int().min(576).max(9000),
  /**
   * The host's uplink clients' traffic leaves through (masqueraded); null = no NAT. An existing
   * host link, so its name may carry a dot (eth0.100), which tunnel names may not.
   */
  natInterface: z.string().regex(UPLINK_NAME, `a host interface name (${UPLINK_NAME_RULE})`).nullable(),
  amnezia: amneziaSchema.nullable(),
  /** Only peers of active clients' enabled devices: everything else is absent from the host. */
  peers: z.array(desiredPeerSchema),
  /** Limited clients' addresses and rates; absent or empty = nobody on this interface is shaped. */
  speedLimits: z.array(desiredSpeedLimitSchema).optional(),
  /**
   * Kept down (its node's tunnels are stopped): configured as usual but the link is down, so it
   * carries nothing and its peers' counters stay as they are. Absent = up.
   */
  down: z.boolean().optional(),
  /**
   * Grows with each restart the panel asks for: an interface whose serial differs from the one
   * the agent last applied to it is taken down and brought up again (docs/agent-host.md,
   * "Restart"). Absent = 0.
   */
  restartSerial: z
    .number()
    .int()
    .nonnegative()
    .max(2 ** 31 - 1)
    .optional(),
});
export type DesiredInterface = z.infer<typeof desiredInterfaceSchema>;

/**
 * A client's byte allowance on this node, enforced by the kernel (an nftables quota across the
 * client's peer addresses, both directions). Only active clients with a quota have one.
 */
export const desiredQuotaSchema = z.object({
  /** The client's id: names its kernel quota on the node. */
  client: z.uuid(),
  /**
   * Bytes the client may still move, as the panel counts them (WireGuard's rx + tx of its peers):
   * the quota minus the usage recorded when this state was read.
   */
  remainingBytes: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
  /** The client's peer addresses on this node (each a peer of one of the interfaces above). */
  ips: z.array(ipv4).min(1).max(4096),
});
export type DesiredQuota = z.infer<typeof desiredQuotaSchema>;

export const desiredStateSchema = z.object({
  nodeId: z.uuid(),
  revision: z.number().int().nonnegative(),
  /** Enabled interfaces only: a disabled or deleted interface is removed from the host. */
  interfaces: z.array(desiredInterfaceSchema),
  /** Hops this node runs (libs/contracts/routing.ts); absent = none. */
  outbounds: z.array(desiredOutboundSchema).max(250).optional(),
  /** Policy routing resolved for this node; absent = DEFAULT_ROUTING (everything direct). */
  routing: desiredRoutingSchema.optional(),
  /**
   * The owner's `allowPrivateTargets` setting. Unless true (absent = false) the agent refuses to
   * run a hop whose address is or resolves on the node to a forbidden address
   * (libs/net/forbidden-targets.ts): the hop fails, and one running is stopped.
   */
  allowPrivateTargets: z.boolean().optional(),
  /** Kernel byte allowances of clients with a quota; absent = none (agents before quotas ignore it). */
  quotas: z.array(desiredQuotaSchema).optional(),
});
export type DesiredState = z.infer<typeof desiredStateSchema>;
