import { z } from 'zod';
import { CONTROL_CHARACTER } from './control-characters.js';
import { storableText } from './storable-text.js';

/**
 * Hops (outbounds) and policy routing as a node must realise them: the part of the desired state
 * the controller resolves for one node. Everything here is already node-local: rules name only
 * outbounds this node runs (or the built-ins), and client, group and interface criteria arrive
 * resolved to tunnel addresses and host interface names. Order of `rules` is the order of
 * matching: the first rule whose criteria all match decides.
 *
 * Probes (`probe` jobs) also live here: they run on the node that owns the outbound.
 */

// Built-in outbounds every node has (in a module of their own: the web panel reads them without zod).
export { BUILTIN_OUTBOUNDS, type BuiltinOutbound } from './builtin-outbounds.js';

/** `[A-Za-z0-9_-]`, 1..64: safe in names of sets, chains and files on the host. */
export const OUTBOUND_TAG = /^[A-Za-z0-9_-]{1,64}$/;
export const outboundTag = z.string().regex(OUTBOUND_TAG, 'an outbound tag ([A-Za-z0-9_-], 1..64)');

/** Kinds a node here can really run (domain.md lists more; these have Debian-packaged runners). */
export const HOP_KINDS = ['wireguard', 'socks', 'http', 'shadowsocks'] as const;
export type HopKind = (typeof HOP_KINDS)[number];

/** Ciphers ss-redir and ss-server (shadowsocks-libev 3.3) both speak; AEAD only. */
export const SHADOWSOCKS_METHODS = ['aes-128-gcm', 'aes-256-gcm', 'chacha20-ietf-poly1305'] as const;

const key = z.string().regex(/^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw480]=$/, 'a WireGuard key (base64 of 32 bytes)');
/** host:port is split by the controller; host is an IP literal or a DNS name. */
const hostName = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[A-Za-z0-9.:_-]+$/, 'an IP address or DNS name');
const port = z.number().int().min(1).max(65535);
const cidr = z.string().regex(/^[0-9a-fA-F.:]+\/\d{1,3}$/, 'an address with prefix length');
/**
 * Credentials: no whitespace-free promise (redsocks and ss-redir read them from 0600 files), but no
 * control character either: the renderers refuse one (libs/files/config-value.ts), so a hop
 * holding one could never run.
 */
const secretText = storableText(256).refine((value) => !CONTROL_CHARACTER.test(value), 'no control character');
/**
 * What redsocks reads in a quoted string: it takes everything up to the next `"` and knows no
 * escapes, so a quote, a backslash or a control character (CR/LF) cannot be written into its
 * config. SOCKS and HTTP hop credentials must match; the API refuses others (400) so a hop is
 * never accepted that its node cannot run.
 */
export const REDSOCKS_TEXT = /^[^"\\\p{Cc}\u2028\u2029]*$/u;
const redsocksText = secretText.regex(
  REDSOCKS_TEXT,
  'no quote, backslash or control character (redsocks cannot read them)',
);

export const wireguardHopSchema = z.object({
  kind: z.literal('wireguard'),
  /** The hop's own host interface (wg-style name, unique on the node; created and owned by the agent). */
  interfaceName: z.string().regex(/^[A-Za-z0-9_-]{1,15}$/),
  privateKey: key,
  /** This side's address on the hop's tunnel, e.g. 10.66.0.2/32. */
  address: cidr,
  peerPublicKey: key,
  presharedKey: key.nullable(),
  endpointHost: hostName,
  endpointPort: port,
  /** What the upstream accepts from us; traffic routed into the hop's table goes to 0.0.0.0/0 regardless. */
  allowedIps: z.array(cidr).min(1).max(64),
  mtu: z.number().int().min(576).max(9000),
  persistentKeepalive: z.number().int().min(0).max(65535),
});

export const socksHopSchema = z.object({
  kind: z.literal('socks'),
  host: hostName,
  port,
  username: redsocksText.nullable(),
  password: redsocksText.nullable(),
});

export const httpHopSchema = z.object({
  kind: z.literal('http'),
  host: hostName,
  port,
  username: redsocksText.nullable(),
  password: redsocksText.nullable(),
});

export const shadowsocksHopSchema = z.object({
  kind: z.literal('shadowsocks'),
  host: hostName,
  port,
  method: z.enum(SHADOWSOCKS_METHODS),
  password: secretText,
});

export const hopConfigSchema = z.discriminatedUnion('kind', [
  wireguardHopSchema,
  socksHopSchema,
  httpHopSchema,
  shadowsocksHopSchema,
]);
export type HopConfig = z.infer<typeof hopConfigSchema>;

/**
 * One hop the node runs. `slot` (1..250) is stable for the outbound's life on the node and
 * unique there: the agent derives the hop's routing table, fwmark and local redirector port
 * from it, so an apply never renumbers what is already in place.
 */
export const desiredOutboundSchema = z.object({
  id: z.uuid(),
  tag: outboundTag,
  slot: z.number().int().min(1).max(250),
  config: hopConfigSchema,
});
export type DesiredOutbound = z.infer<typeof desiredOutboundSchema>;

/** A port or an inclusive range, as nftables writes them: `443`, `6881-6889`. */
export const portRange = z.string().regex(/^\d{1,5}(-\d{1,5})?$/, 'a port or port range (a-b)');
/** A domain as dnsmasq matches it: the name and every name under it. */
export const domainName = z
  .string()
  .max(253)
  .regex(
    /^(?=.{1,253}$)([A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?\.)*[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$/,
    'a domain name',
  );

export const MAX_RULES_PER_NODE = 5000;
export const MAX_LIST_ENTRIES = 10_000;

/**
 * One rule, resolved for this node. Every criterion given (non-empty list, non-null network)
 * must match; an empty list means "any". `sourceIps` already contains the tunnel addresses of
 * the rule's clients and groups; when the rule named clients or groups that have no device on
 * this node, `sourceIps` is empty and `matchesNothing` is true (the rule must not fall back to
 * "any source").
 */
export const desiredRuleSchema = z.object({
  id: z.uuid(),
  outbound: outboundTag,
  sourceIps: z.array(cidr).max(MAX_LIST_ENTRIES),
  sourcePorts: z.array(portRange).max(256),
  network: z.enum(['tcp', 'udp', 'icmp']).nullable(),
  destIps: z.array(cidr).max(MAX_LIST_ENTRIES),
  domains: z.array(domainName).max(MAX_LIST_ENTRIES),
  ports: z.array(portRange).max(256),
  /** Tunnel interfaces (host names) the traffic must arrive on. */
  inInterfaces: z.array(z.string().regex(/^[A-Za-z0-9_.-]{1,15}$/)).max(4096),
  matchesNothing: z.boolean(),
});
export type DesiredRule = z.infer<typeof desiredRuleSchema>;

/**
 * A balancer as the node realises it, already resolved by the controller (it knows the hops'
 * health; the agent needs none): `outbounds` holds the one hop a failover balancer (or an
 * override) picks now, or the healthy hops a `hash` balancer spreads its clients over. A rule or
 * the default naming the balancer's tag goes to `balancerPick` of the packet's source address.
 * Each entry is a hop the node runs or a built-in (`blocked` when no hop is usable and
 * fail-closed is on, `direct` when it is off).
 */
export const desiredBalancerSchema = z.object({
  tag: outboundTag,
  outbounds: z.array(outboundTag).min(1).max(250),
});
export type DesiredBalancer = z.infer<typeof desiredBalancerSchema>;

export const desiredRoutingSchema = z.object({
  /** Where traffic no rule matched goes: a built-in or one of this node's outbounds. */
  defaultOutbound: outboundTag,
  /**
   * Traffic for a hop that is down (process gone, interface missing), not running here, or that
   * cannot carry its protocol (UDP and ICMP through a SOCKS/HTTP/shadowsocks hop) is dropped.
   * Off ("fail open"), that traffic leaves directly from the node's uplink instead.
   */
  failClosed: z.boolean(),
  blockBitTorrent: z.boolean(),
  blockIps: z.array(cidr).max(MAX_LIST_ENTRIES),
  blockDomains: z.array(domainName).max(MAX_LIST_ENTRIES),
  blockPorts: z.array(portRange).max(256),
  directIps: z.array(cidr).max(MAX_LIST_ENTRIES),
  directDomains: z.array(domainName).max(MAX_LIST_ENTRIES),
  rules: z.array(desiredRuleSchema).max(MAX_RULES_PER_NODE),
  /** The node's balancers (rules and the default may name their tags); absent = none. */
  balancers: z.array(desiredBalancerSchema).max(250).optional(),
});
export type DesiredRouting = z.infer<typeof desiredRoutingSchema>;

/**
 * Routing a node gets when nothing is configured: everything direct, nothing blocked, and fail
 * closed (a routing product must not leak by default; issue 19 item 8).
 */
export const DEFAULT_ROUTING: DesiredRouting = {
  defaultOutbound: 'direct',
  failClosed: true,
  blockBitTorrent: false,
  blockIps: [],
  blockDomains: [],
  blockPorts: [],
  directIps: [],
  directDomains: [],
  rules: [],
};

/** Probe an outbound from the node that runs it (`POST /api/outbounds/{id}/check`). */
export const PROBE_JOB = 'probe';

export const probeJobSchema = z.object({
  outboundId: z.uuid(),
  /** tcp: time the connect to the hop only; http: fetch `url` through the hop. */
  mode: z.enum(['tcp', 'http']),
  /** The hop to go through; `direct` probes without one. */
  config: z.union([hopConfigSchema, z.object({ kind: z.literal('direct') })]),
  url: z.url().max(2048),
  timeoutMs: z.number().int().min(100).max(60_000),
  /** When false the agent refuses (errorClass `forbidden`) targets that resolve to a forbidden address (libs/net/forbidden-targets.ts) or its own. */
  allowPrivateTargets: z.boolean(),
});
export type ProbeJob = z.infer<typeof probeJobSchema>;

export const PROBE_ERROR_CLASSES = [
  'dns',
  'connect',
  'timeout',
  'handshake',
  'auth',
  'upstream',
  'http',
  'forbidden',
  'unsupported',
  'internal',
  /** The controller's own answer, never an agent's: the node's agent is not linked, so no probe was sent. */
  'agent-not-linked',
] as const;

const stageMs = z.number().nonnegative().max(600_000).nullable();
export const probeResultSchema = z.object({
  ok: z.boolean(),
  latencyMs: z.number().nonnegative().max(600_000).nullable(),
  stages: z.object({ dns: stageMs, connect: stageMs, handshake: stageMs, firstByte: stageMs }),
  errorClass: z.enum(PROBE_ERROR_CLASSES).nullable(),
  error: storableText(500).nullable(),
  /** The address the test server saw (from the response body when it is an IP), else null. */
  egressIp: z.string().max(45).nullable(),
});
export type ProbeResult = z.infer<typeof probeResultSchema>;
