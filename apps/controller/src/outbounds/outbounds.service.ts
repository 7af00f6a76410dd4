import { Injectable } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import { CONTROL_CHARACTER } from '#libs/contracts/control-characters.js';
import { BUILTIN_OUTBOUNDS, REDSOCKS_TEXT } from '#libs/contracts/routing.js';
import { canonicalAddress } from '#libs/net/forbidden-targets.js';
import { generateKeyPair, publicKeyFromPrivate } from '#libs/wireguard/keys.js';
import { normalizeCidr, normalizeList } from '../common/network-text.js';
import { mapUniqueViolations } from '../database/unique-violations.js';
import { badRequest, conflict, notFound } from '../http/api-error.js';
import { isId } from '../http/id.js';
import { bumpRevisions, lockNode } from '../revisions/revisions.js';
import {
  DEFAULT_HOP_ALLOWED_IPS,
  DEFAULT_HOP_KEEPALIVE,
  DEFAULT_HOP_MTU,
  MAX_HOPS_PER_NODE,
  type CreateOutboundDto,
  type UpdateOutboundDto,
} from './dto/outbound.dto.js';
import { assertAllowedHopHost, assertReachableByKind, parseHopAddress, type HopAddress } from './hop-address.js';
import type { Outbound } from './outbound.entity.js';
import { isBuiltin, OutboundsRepository, type OutboundView } from './outbounds.repository.js';
import { SettingsService } from '../settings/settings.service.js';

export type { OutboundView } from './outbounds.repository.js';

/** Slots a node hands its hops: the agent derives table, fwmark and redirector port from them. */
export const MAX_SLOT = MAX_HOPS_PER_NODE;

const UNIQUE_FIELDS = {
  outbounds_node_id_tag_unique: { field: 'tag', message: 'an outbound with this tag already exists on this node' },
  outbounds_node_id_slot_unique: {
    field: '',
    message: 'another hop was created on this node at the same time; try again',
  },
  outbounds_node_id_interface_name_unique: {
    field: '',
    message: 'another hop was created on this node at the same time; try again',
  },
};

/** Fields each hop kind takes; any other kind-specific field given is refused by name. */
const KIND_FIELDS = {
  socks: ['username', 'password'],
  http: ['username', 'password'],
  shadowsocks: ['password', 'method'],
  wireguard: ['privateKey', 'peerPublicKey', 'presharedKey', 'allowedIps', 'tunnelAddress', 'mtu', 'keepalive'],
} as const;
const SPECIFIC_FIELDS = [
  'username',
  'password',
  'method',
  'privateKey',
  'peerPublicKey',
  'presharedKey',
  'allowedIps',
  'tunnelAddress',
  'mtu',
  'keepalive',
] as const;
type SpecificField = (typeof SPECIFIC_FIELDS)[number];

/**
 * Fields of another kind are refused by name; so are SOCKS and HTTP credentials redsocks cannot
 * read (a quote, backslash or control character) and shadowsocks passwords holding a control
 * character (C0, C1, DEL, U+2028/2029, which the renderers refuse): accepted, the hop would only
 * fail on its node.
 */
export function assertFieldsFit(kind: keyof typeof KIND_FIELDS, input: Partial<Record<SpecificField, unknown>>): void {
  const allowed: readonly string[] = KIND_FIELDS[kind];
  const stray = SPECIFIC_FIELDS.find((field) => input[field] !== undefined && !allowed.includes(field));
  if (stray) throw badRequest(`${stray} does not apply to a ${kind} outbound`, stray);
  if (kind === 'shadowsocks' && input.password === '')
    throw badRequest('a shadowsocks outbound needs a password (not empty)', 'password');
  if (kind === 'shadowsocks' && typeof input.password === 'string' && CONTROL_CHARACTER.test(input.password)) {
    throw badRequest(
      "password may not contain a control character (such as a line break): the node's shadowsocks client (ss-redir) could not be given it",
      'password',
    );
  }
  if (kind === 'socks' || kind === 'http') {
    for (const field of ['username', 'password'] as const) {
      const value = input[field];
      if (typeof value === 'string' && !REDSOCKS_TEXT.test(value)) {
        throw badRequest(
          `${field} may not contain a quote ("), a backslash or a control character: the node's redirector (redsocks) cannot read them`,
          field,
        );
      }
    }
  }
}

/** A tag that spells a built-in in any case (`Direct`): it would read as the built-in in lists and rules. */
export function isBuiltinTag(tag: unknown): boolean {
  return typeof tag === 'string' && (BUILTIN_OUTBOUNDS as readonly string[]).includes(tag.toLowerCase());
}

/**
 * A stored secret that the hop sends to its server must not follow a change of that server: a
 * SOCKS or HTTP proxy password, or a shadowsocks password, travels to whatever `address` says
 * (the probe, redsocks, ss-redir), so someone who may change the address but never reads the
 * secret (an admin, or a template import without secrets) would otherwise receive it at an
 * address of theirs. Changing where it goes therefore requires the secret again in the same
 * request (or `null`, clearing an optional one). A WireGuard hop sends no secret: its handshake
 * proves the private and preshared keys without revealing them, so its endpoint may move.
 */
export function assertSecretGivenForNewAddress(
  kind: string,
  stored: { host: string | null; port: number | null; hasPassword: boolean },
  next: HopAddress,
  givenPassword: string | null | undefined,
  field = 'password',
): void {
  if (kind !== 'socks' && kind !== 'http' && kind !== 'shadowsocks') return;
  if (!stored.hasPassword || givenPassword !== undefined) return;
  if (sameHost(stored.host, next.host) && stored.port === next.port) return;
  throw badRequest(
    `changing the address of a ${kind} outbound that has a password requires the password again in the same request: the stored one is not sent to a new address`,
    field,
  );
}

/** Host names compare without case or a trailing dot; addresses in canonical form. */
function sameHost(a: string | null, b: string): boolean {
  if (a === null) return false;
  const canonical = (host: string) => canonicalAddress(host)?.text ?? host.toLowerCase().replace(/\.$/, '');
  return canonical(a) === canonical(b);
}

/**
 * A WireGuard hop's keys that cannot work: an all-zero private key (no real key pair; every
 * handshake with it is predictable), or a private key whose public key is the peer's own (the hop
 * would "peer" with itself). `field` names what the caller gave.
 */
export function assertUsableHopKeys(
  privateKey: string | null | undefined,
  peerPublicKey: string | null | undefined,
  field: 'privateKey' | 'peerPublicKey',
): void {
  if (privateKey && Buffer.from(privateKey, 'base64').every((byte) => byte === 0))
    throw badRequest('privateKey must not be all zeros', 'privateKey');
  if (privateKey && peerPublicKey && publicKeyFromPrivate(privateKey) === peerPublicKey) {
    throw badRequest(
      "peerPublicKey is this hop's own public key: the peer must be the upstream, with a key pair of its own",
      field,
    );
  }
}

/**
 * Outbounds (hops) per node. Writes lock the outbound row, then the node row (the controller's
 * lock order), check under the lock and bump the node's revision in the same transaction.
 */
@Injectable()
export class OutboundsService {
  constructor(
    private readonly outbounds: OutboundsRepository,
    private readonly settings: SettingsService,
  ) {}

  /** The node a request acts on: the one named (it must exist), else the local node. */
  async nodeOf(nodeId: string | undefined): Promise<string> {
    if (nodeId !== undefined) {
      if (!(isId(nodeId) && (await this.outbounds.nodeExists(nodeId)))) throw notFound('node not found', 'nodeId');
      return nodeId;
    }
    const local = await this.outbounds.localNodeId();
    if (local === null) throw notFound('there is no local node; pass nodeId', 'nodeId');
    return local;
  }

  async list(nodeId: string | undefined): Promise<OutboundView[]> {
    return this.outbounds.list(await this.nodeOf(nodeId));
  }

  async get(id: string): Promise<OutboundView> {
    const found = await this.outbounds.get(id);
    if (!found) throw notFound('outbound not found', 'id');
    return found;
  }

  /**
   * The create route's rules that need no node and no lock: the fields fit the kind, the tag is
   * not a built-in's, the keys can work, the address parses and may be dialled. The parse route
   * (share links) runs the same, so a parsed body is one create accepts.
   */
  async validateCreate(input: CreateOutboundDto) {
    assertFieldsFit(input.kind, input);
    if (isBuiltinTag(input.tag))
      throw conflict(`"${input.tag}" is the tag of a built-in outbound (in any case); choose another`, 'tag');
    if (input.kind === 'wireguard') assertUsableHopKeys(input.privateKey, input.peerPublicKey, 'peerPublicKey');
    const address = parseHopAddress(input.address);
    assertReachableByKind(input.kind, address.host);
    await this.assertAllowedHost(address.host);
    return { address, fields: this.kindFields(input.kind, input) };
  }

  async create(input: CreateOutboundDto): Promise<OutboundView> {
    const { address, fields } = await this.validateCreate(input);
    const nodeId = await this.nodeOf(input.nodeId);
    const id = await this.write(async (em) => {
      await lockNode(em, nodeId, 'nodeId');
      const placements = await this.outbounds.placementsOnNode(em, nodeId);
      if (placements.some((other) => other.tag === input.tag))
        throw conflict(`an outbound tagged "${input.tag}" already exists on this node`, 'tag');
      if (await this.outbounds.balancerTagged(em, nodeId, input.tag))
        throw conflict(`a balancer tagged "${input.tag}" already exists on this node`, 'tag');
      const used = new Set(placements.map((other) => other.slot));
      const slot = Array.from({ length: MAX_SLOT }, (_, i) => i + 1).find((candidate) => !used.has(candidate));
      if (slot === undefined) throw conflict(`a node runs at most ${MAX_SLOT} hops`);
      const interfaceName =
        input.kind === 'wireguard' ? await this.hopInterfaceName(em, nodeId, slot, placements) : null;
      const id = await this.outbounds.insert(em, {
        nodeId,
        tag: input.tag,
        kind: input.kind,
        enabled: input.enabled ?? true,
        // Listed after the node's other hops unless placed: positions stay distinct.
        position: input.position ?? (await this.outbounds.nextPosition(em, nodeId)),
        host: address.host,
        port: address.port,
        note: input.note ?? '',
        slot,
        interfaceName,
        ...fields,
      });
      await bumpRevisions(em, [nodeId]);
      return id;
    });
    return this.get(id);
  }

  async update(id: string, changes: UpdateOutboundDto): Promise<OutboundView> {
    await this.write(async (em) => {
      const row = await this.lock(em, id);
      const nodeId = row.node.id;
      await lockNode(em, nodeId, 'nodeId');
      if (isBuiltin(row.kind)) {
        const field = Object.keys(changes).find((key) => changes[key as keyof UpdateOutboundDto] !== undefined) ?? '';
        throw badRequest(`the built-in outbound "${row.tag}" cannot be changed`, field);
      }
      if (changes.nodeId !== undefined && changes.nodeId !== nodeId)
        throw badRequest('an outbound cannot move to another node; create one there instead', 'nodeId');
      if (changes.kind !== undefined && changes.kind !== row.kind)
        throw badRequest(`kind cannot change (this outbound is ${row.kind}); create a new one instead`, 'kind');
      const kind = row.kind as keyof typeof KIND_FIELDS;
      assertFieldsFit(kind, changes);
      if (changes.tag !== undefined && changes.tag !== row.tag) {
        if (isBuiltinTag(changes.tag))
          throw conflict(`"${changes.tag}" is the tag of a built-in outbound (in any case); choose another`, 'tag');
        const placements = await this.outbounds.placementsOnNode(em, nodeId);
        if (placements.some((other) => other.tag === changes.tag))
          throw conflict(`an outbound tagged "${changes.tag}" already exists on this node`, 'tag');
        if (await this.outbounds.balancerTagged(em, nodeId, changes.tag))
          throw conflict(`a balancer tagged "${changes.tag}" already exists on this node`, 'tag');
      }
      if (changes.enabled === false && row.enabled && (await this.outbounds.isDefault(em, row.id))) {
        throw conflict(
          `"${row.tag}" is the node's default outbound; choose another default (PUT /api/routing) before disabling it`,
          'enabled',
        );
      }
      const before = JSON.stringify(snapshot(row));
      if (changes.address !== undefined) {
        const address = parseHopAddress(changes.address);
        assertReachableByKind(kind, address.host);
        assertSecretGivenForNewAddress(
          kind,
          { host: row.host ?? null, port: row.port ?? null, hasPassword: row.password != null },
          address,
          changes.password,
        );
        if (address.host !== row.host) await this.assertAllowedHost(address.host);
        row.host = address.host;
        row.port = address.port;
      }
      if (changes.tag !== undefined) row.tag = changes.tag;
      if (changes.enabled !== undefined) row.enabled = changes.enabled;
      if (changes.position !== undefined) row.position = changes.position;
      if (changes.note !== undefined) row.note = changes.note;
      if (changes.username !== undefined) row.username = changes.username;
      if (changes.password !== undefined) {
        if (!changes.password && kind === 'shadowsocks')
          throw badRequest('a shadowsocks outbound needs a password', 'password');
        row.password = changes.password;
      }
      if (changes.method !== undefined) row.method = changes.method;
      if (changes.privateKey !== undefined) {
        row.privateKey = changes.privateKey;
        row.publicKey = publicKeyFromPrivate(changes.privateKey);
      }
      if (changes.peerPublicKey !== undefined) row.peerPublicKey = changes.peerPublicKey;
      if (changes.presharedKey !== undefined) row.presharedKey = changes.presharedKey;
      if (changes.allowedIps !== undefined) row.allowedIps = allowedIps(changes.allowedIps);
      if (changes.tunnelAddress !== undefined)
        row.tunnelAddress = normalizeCidr(changes.tunnelAddress, 'tunnelAddress');
      if (changes.mtu !== undefined) row.mtu = changes.mtu;
      if (changes.keepalive !== undefined) row.keepalive = changes.keepalive;
      if (changes.privateKey !== undefined || changes.peerPublicKey !== undefined) {
        assertUsableHopKeys(
          row.privateKey,
          row.peerPublicKey,
          changes.peerPublicKey !== undefined ? 'peerPublicKey' : 'privateKey',
        );
      }
      // A change that changes nothing leaves the node's revision alone (no pointless apply).
      if (JSON.stringify(snapshot(row)) === before) return;
      await this.outbounds.save(em);
      await bumpRevisions(em, [nodeId]);
    });
    return this.get(id);
  }

  /**
   * Sets the display order of a node's hops: `ids` lists every hop of the node once (the
   * built-ins are always listed first and take no place in it); position = index. Display only:
   * what the node runs does not change, so its revision stays.
   */
  async order(nodeId: string | undefined, ids: readonly string[]): Promise<OutboundView[]> {
    const node = await this.nodeOf(nodeId);
    const seen = new Set<string>();
    for (const id of ids) {
      if (!isId(id)) throw badRequest(`"${id}" is not an outbound id`, 'ids');
      if (seen.has(id.toLowerCase())) throw badRequest(`outbound ${id} is listed twice`, 'ids');
      seen.add(id.toLowerCase());
    }
    await this.write(async (em) => {
      await lockNode(em, node, 'nodeId');
      const kinds = await this.outbounds.kindsOnNode(em, node);
      for (const id of seen) {
        const kind = kinds.get(id);
        if (kind === undefined) throw notFound(`outbound ${id} is not an outbound of this node`, 'ids');
        if (isBuiltin(kind))
          throw badRequest(`outbound ${id} is the built-in ${kind}, always listed first; list only hops`, 'ids');
      }
      const hops = [...kinds.values()].filter((kind) => !isBuiltin(kind)).length;
      if (seen.size !== hops)
        throw badRequest(`ids must list every hop of the node once (${hops}); ${hops - seen.size} missing`, 'ids');
      await this.outbounds.setOrder(em, node, [...seen]);
    });
    return this.outbounds.list(node);
  }

  /**
   * Zeroes one outbound's traffic (its `since` becomes now). What the node meanwhile counted and
   * reports later counts from the reset on: the agent reports deltas, never totals.
   */
  async resetTraffic(id: string): Promise<OutboundView> {
    await this.write(async (em) => {
      await this.lock(em, id);
      await this.outbounds.resetTraffic(em, { id });
    });
    return this.get(id);
  }

  /** Zeroes the traffic of every outbound of a node; answers the node's outbounds. */
  async resetAllTraffic(nodeId: string | undefined): Promise<OutboundView[]> {
    const node = await this.nodeOf(nodeId);
    await this.write((em) => this.outbounds.resetTraffic(em, { nodeId: node }));
    return this.outbounds.list(node);
  }

  /** Refused for the built-ins, and while rules or the node's default still route through it (409 naming them). */
  async remove(id: string): Promise<{ id: string; deleted: true }> {
    return this.write(async (em) => {
      const row = await this.lock(em, id);
      const nodeId = row.node.id;
      await lockNode(em, nodeId, 'nodeId');
      if (isBuiltin(row.kind)) throw conflict(`the built-in outbound "${row.tag}" cannot be removed`);
      const rules = await this.outbounds.rulesUsing(em, id);
      if (rules.length > 0) {
        const names = rules.map((rule) => `"${rule.name}" (${rule.id})`).join(', ');
        throw conflict(
          `outbound "${row.tag}" is used by ${rules.length === 1 ? 'rule' : 'rules'} ${names}; change or delete them first`,
        );
      }
      if (await this.outbounds.isDefault(em, id))
        throw conflict(`outbound "${row.tag}" is the node's default outbound; choose another default first`);
      const balancers = await this.outbounds.balancersUsing(em, id);
      if (balancers.length > 0) {
        const tags = balancers.map((balancer) => `"${balancer.tag}" (${balancer.id})`).join(', ');
        throw conflict(
          `outbound "${row.tag}" is a hop of ${balancers.length === 1 ? 'balancer' : 'balancers'} ${tags}; take it out of them first`,
        );
      }
      await this.outbounds.delete(em, id);
      await bumpRevisions(em, [nodeId]);
      return { id, deleted: true as const };
    });
  }

  private async lock(em: EntityManager, id: string): Promise<Outbound> {
    const row = isId(id) ? await this.outbounds.lock(em, id) : null;
    if (!row) throw notFound('outbound not found', 'id');
    return row;
  }

  private async assertAllowedHost(host: string): Promise<void> {
    if (!(await this.settings.get()).allowPrivateTargets) await assertAllowedHopHost(host);
  }

  /** The kind's own columns for a new hop, checked; every other kind-specific column null. */
  private kindFields(kind: CreateOutboundDto['kind'], input: CreateOutboundDto) {
    const none = {
      username: null,
      password: null,
      method: null,
      privateKey: null,
      publicKey: null,
      peerPublicKey: null,
      presharedKey: null,
      allowedIps: [] as string[],
      tunnelAddress: null,
      mtu: null,
      keepalive: null,
    };
    switch (kind) {
      case 'socks':
      case 'http':
        return { ...none, username: input.username ?? null, password: input.password ?? null };
      case 'shadowsocks':
        if (input.method === undefined) throw badRequest('method is required for a shadowsocks outbound', 'method');
        if (!input.password)
          throw badRequest('password is required for a shadowsocks outbound (not empty)', 'password');
        return { ...none, method: input.method, password: input.password };
      case 'wireguard': {
        if (input.peerPublicKey === undefined)
          throw badRequest('peerPublicKey is required for a wireguard outbound', 'peerPublicKey');
        if (input.tunnelAddress === undefined)
          throw badRequest('tunnelAddress is required for a wireguard outbound', 'tunnelAddress');
        const keys = input.privateKey
          ? { privateKey: input.privateKey, publicKey: publicKeyFromPrivate(input.privateKey) }
          : generateKeyPair();
        return {
          ...none,
          privateKey: keys.privateKey,
          publicKey: keys.publicKey,
          peerPublicKey: input.peerPublicKey,
          presharedKey: input.presharedKey ?? null,
          allowedIps: allowedIps(input.allowedIps ?? [...DEFAULT_HOP_ALLOWED_IPS]),
          tunnelAddress: normalizeCidr(input.tunnelAddress, 'tunnelAddress'),
          mtu: input.mtu ?? DEFAULT_HOP_MTU,
          keepalive: input.keepalive ?? DEFAULT_HOP_KEEPALIVE,
        };
      }
    }
  }

  /** `whop<slot>`, or a variant when a tunnel of the node already has that name. */
  private async hopInterfaceName(
    em: EntityManager,
    nodeId: string,
    slot: number,
    placements: { interfaceName: string | null }[],
  ): Promise<string> {
    const taken = await this.outbounds.tunnelNames(em, nodeId);
    for (const name of placements.map((other) => other.interfaceName)) if (name) taken.add(name);
    for (let n = 0; ; n++) {
      const name = n === 0 ? `whop${slot}` : `whop${slot}-${n}`;
      if (!taken.has(name)) return name;
    }
  }

  private write<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    return mapUniqueViolations(() => this.outbounds.transaction(work), UNIQUE_FIELDS);
  }
}

function allowedIps(values: readonly string[]): string[] {
  const list = normalizeList(values, 'allowedIps', normalizeCidr);
  if (list.length === 0)
    throw badRequest('allowedIps needs at least one network (0.0.0.0/0 for everything)', 'allowedIps');
  return list;
}

/** The fields whose change alters what the node runs (or shows). */
function snapshot(row: Outbound) {
  return [
    row.tag,
    row.enabled,
    row.position,
    row.host,
    row.port,
    row.username,
    row.password,
    row.method,
    row.privateKey,
    row.peerPublicKey,
    row.presharedKey,
    row.allowedIps,
    row.tunnelAddress,
    row.mtu,
    row.keepalive,
    row.note,
  ];
}
