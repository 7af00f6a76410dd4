import { Injectable } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  AMNEZIA_FIELDS as AWG_FIELDS,
  amneziaFailures,
  generateAmneziaParams,
  type AmneziaParams,
} from '#libs/wireguard/amnezia.js';
import { gatewayAddress, parseInterfaceSubnet } from '#libs/wireguard/address-pool.js';
import { cidrsOverlap, Ipv4FormatError, type Cidr } from '#libs/wireguard/ipv4.js';
import { generateKeyPair } from '#libs/wireguard/keys.js';
import { renderServerProfile } from '#libs/wireguard/server-profile.js';
import { badRequest, conflict, notFound } from '../http/api-error.js';
import { mapUniqueViolations } from '../database/unique-violations.js';
import { bumpRevisions, lockNode } from '../revisions/revisions.js';
import {
  DEFAULT_DNS,
  type CloneInterfaceDto,
  type CreateInterfaceDto,
  type UpdateInterfaceDto,
} from './dto/interface.dto.js';
import { isId } from '../http/id.js';
import type { TunnelInterface } from './interface.entity.js';
import { InterfacesRepository, type InterfaceView } from './interfaces.repository.js';

export type { InterfaceView } from './interfaces.repository.js';

/** An interface's server profile (GET /api/interfaces/{id}/profile). */
export interface InterfaceProfile {
  id: string;
  filename: string;
  mimeType: string;
  body: string;
  /** Peers in it. */
  peers: number;
}

const UNIQUE_FIELDS = {
  interfaces_node_id_name_unique: { field: 'name', message: 'an interface with this name already exists on this node' },
  interfaces_node_id_listen_port_unique: {
    field: 'listenPort',
    message: 'this listen port is already used on this node',
  },
};

/** The part of an interface that must be unique on its node. */
interface WantedPlacement {
  name: string;
  listenPort: number;
  subnet: Cidr;
  subnetText: string;
}

/**
 * WireGuard / AmneziaWG interfaces. Every write locks what it checks (the interface row, then
 * its node row), re-reads under the lock, and bumps the node's revision in the same transaction.
 */
@Injectable()
export class InterfacesService {
  constructor(private readonly interfaces: InterfacesRepository) {}

  async list(filter: { nodeId?: string } = {}): Promise<InterfaceView[]> {
    if (filter.nodeId !== undefined && !(isId(filter.nodeId) && (await this.interfaces.nodeExists(filter.nodeId)))) {
      throw notFound('node not found', 'nodeId');
    }
    return this.interfaces.list(filter.nodeId);
  }

  async get(id: string): Promise<InterfaceView> {
    const found = await this.interfaces.get(id);
    if (!found) throw notFound('interface not found', 'id');
    return found;
  }

  /** The interface's server side as a wg-quick file, secrets withheld (docs/interfaces.md, "Profile"). */
  async profile(id: string): Promise<InterfaceProfile> {
    const found = isId(id) ? await this.interfaces.withPeers(id) : null;
    if (!found) throw notFound('interface not found', 'id');
    const { row, peers } = found;
    const body = renderServerProfile({
      name: row.name,
      address: `${gatewayAddress(row.subnet)}/${row.subnet.split('/')[1]}`,
      listenPort: row.listenPort,
      mtu: row.mtu,
      amnezia: row.mode === 'amnezia' ? row.awg : null,
      peers,
    });
    return { id: row.id, filename: `${row.name}.conf`, mimeType: 'text/plain', body, peers: peers.length };
  }

  /** Locks the interface row (before its node row: the controller's lock order) and reads it fresh. */
  async lock(em: EntityManager, id: string, field = 'id'): Promise<TunnelInterface> {
    const row = isId(id) ? await this.interfaces.lock(em, id) : null;
    if (!row) throw notFound('interface not found', field);
    return row;
  }

  async create(input: CreateInterfaceDto): Promise<InterfaceView> {
    const mode = input.mode ?? 'standard';
    if (input.awg !== undefined && mode !== 'amnezia')
      throw badRequest('awg parameters apply only to amnezia mode', 'awg');
    const subnet = parseSubnet(input.subnet);
    const awg = mode === 'amnezia' ? (input.awg ? checkedAwg(input.awg) : generateAmneziaParams()) : null;
    const keys = generateKeyPair();

    const id = await this.write(async (em) => {
      const nodeId = input.nodeId ?? (await this.interfaces.localNodeId(em));
      if (nodeId === null) throw notFound('there is no local node; pass nodeId', 'nodeId');
      if (!isId(nodeId)) throw notFound('node not found', 'nodeId');
      await lockNode(em, nodeId, 'nodeId');
      await this.assertPlacementFree(em, nodeId, {
        name: input.name,
        listenPort: input.listenPort,
        subnet,
        subnetText: input.subnet,
      });
      const id = await this.interfaces.insert(em, {
        nodeId,
        name: input.name,
        protocol: 'wireguard',
        mode,
        listenPort: input.listenPort,
        subnet: input.subnet,
        endpointHost: input.endpointHost,
        mtu: input.mtu ?? 1420,
        dns: input.dns ?? [...DEFAULT_DNS],
        natInterface: input.natInterface ?? null,
        enabled: input.enabled ?? true,
        privateKey: keys.privateKey,
        publicKey: keys.publicKey,
        awg,
        allocationCursor: null,
      });
      await bumpRevisions(em, [nodeId]);
      return id;
    });
    return this.get(id);
  }

  /**
   * W-UI's clone: a new interface on the source's node with the source's settings (mode, endpoint,
   * MTU, DNS, NAT, enabled, AmneziaWG parameters) under a new name, port and subnet, with keys of
   * its own and no accounts. DNS set to the source's own gateway becomes the clone's gateway.
   */
  async clone(id: string, wanted: CloneInterfaceDto): Promise<InterfaceView> {
    const source = await this.get(id);
    const ownGateway = source.dns.length === 1 && source.dns[0] === source.gateway;
    return this.create({
      nodeId: source.nodeId,
      name: wanted.name,
      protocol: source.protocol,
      mode: source.mode,
      listenPort: wanted.listenPort,
      subnet: wanted.subnet,
      endpointHost: source.endpointHost,
      mtu: source.mtu,
      dns: ownGateway ? [gatewayAddress(parseSubnet(wanted.subnet))] : [...source.dns],
      natInterface: source.natInterface,
      enabled: source.enabled,
      ...(source.awg ? { awg: { ...source.awg } } : {}),
    });
  }

  /**
   * Name, port, endpoint, MTU, DNS, NAT, enabled and (amnezia only) awg may change at any time;
   * the subnet only while no address is handed out from it. Node and mode are fixed.
   */
  async update(id: string, changes: UpdateInterfaceDto): Promise<InterfaceView> {
    await this.write(async (em) => {
      const row = await this.lock(em, id);
      const nodeId = row.node.id;
      await lockNode(em, nodeId, 'nodeId');

      if (changes.nodeId !== undefined && changes.nodeId !== nodeId) {
        throw badRequest('an interface cannot move to another node; create one there instead', 'nodeId');
      }
      if (changes.mode !== undefined && changes.mode !== row.mode) {
        throw badRequest(`mode cannot change (this interface is ${row.mode}); create a new interface instead`, 'mode');
      }
      if (changes.awg !== undefined && row.mode !== 'amnezia')
        throw badRequest('awg parameters apply only to amnezia mode', 'awg');
      const awg = changes.awg !== undefined ? checkedAwg(changes.awg) : undefined;

      const subnetChanges = changes.subnet !== undefined && changes.subnet !== row.subnet;
      const subnet = parseSubnet(changes.subnet ?? row.subnet);
      if (subnetChanges) {
        const count = (await this.interfaces.accountCounts(em, id)).accounts;
        if (count > 0) {
          throw conflict(
            `the subnet cannot change while ${count} ${count === 1 ? 'address is' : 'addresses are'} allocated from it; delete the devices first or create a new interface`,
            'subnet',
          );
        }
      }
      await this.assertPlacementFree(
        em,
        nodeId,
        {
          name: changes.name ?? row.name,
          listenPort: changes.listenPort ?? row.listenPort,
          subnet,
          subnetText: changes.subnet ?? row.subnet,
        },
        id,
      );

      const before = JSON.stringify(snapshot(row));
      if (subnetChanges) {
        // DNS set to the old gateway (a resolver the operator runs there) follows the gateway to the new subnet.
        const oldGateway = gatewayAddress(row.subnet);
        if (changes.dns === undefined && row.dns.length === 1 && row.dns[0] === oldGateway)
          row.dns = [gatewayAddress(subnet)];
        row.subnet = changes.subnet!;
        row.allocationCursor = null;
      }
      if (changes.name !== undefined) row.name = changes.name;
      if (changes.listenPort !== undefined) row.listenPort = changes.listenPort;
      if (changes.endpointHost !== undefined) row.endpointHost = changes.endpointHost;
      if (changes.mtu !== undefined) row.mtu = changes.mtu;
      if (changes.dns !== undefined) row.dns = [...changes.dns];
      if (changes.natInterface !== undefined) row.natInterface = changes.natInterface;
      if (changes.enabled !== undefined) row.enabled = changes.enabled;
      if (awg !== undefined) row.awg = awg;
      // A change that changes nothing leaves the node's revision alone (no pointless apply).
      if (JSON.stringify(snapshot(row)) === before) return;
      await this.interfaces.save(em);
      await bumpRevisions(em, [nodeId]);
    });
    return this.get(id);
  }

  /**
   * Deleting cascades to the interface's hosts, its accounts (each device loses its peer here)
   * and its client attachments. Refused while devices use it, unless forced.
   */
  async remove(id: string, force: boolean): Promise<{ id: string; deleted: true; accountsRemoved: number }> {
    return this.write(async (em) => {
      const row = await this.lock(em, id);
      const nodeId = row.node.id;
      await lockNode(em, nodeId, 'nodeId');
      const usage = await this.interfaces.accountCounts(em, id);
      const devices = usage.devices;
      if (devices > 0 && !force) {
        throw conflict(
          `${devices} ${devices === 1 ? 'device still uses' : 'devices still use'} this interface; delete them or pass ?force=true`,
        );
      }
      await this.interfaces.delete(em, id);
      await bumpRevisions(em, [nodeId]);
      return { id, deleted: true as const, accountsRemoved: usage.accounts };
    });
  }

  private write<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    return mapUniqueViolations(() => this.interfaces.transaction(work), UNIQUE_FIELDS);
  }

  /** Name, port and subnet must be free on the node; checked under the node's lock. */
  private async assertPlacementFree(
    em: EntityManager,
    nodeId: string,
    wanted: WantedPlacement,
    selfId?: string,
  ): Promise<void> {
    const others = (await this.interfaces.placementsOnNode(em, nodeId)).filter((other) => other.id !== selfId);
    const sameName = others.find((other) => other.name === wanted.name);
    if (sameName) throw conflict(`an interface named "${wanted.name}" already exists on this node`, 'name');
    const samePort = others.find((other) => other.listenPort === wanted.listenPort);
    if (samePort)
      throw conflict(
        `listen port ${wanted.listenPort} is already used by interface "${samePort.name}" on this node`,
        'listenPort',
      );
    const overlapping = others.find((other) => cidrsOverlap(wanted.subnet, other.subnet));
    if (overlapping) {
      throw conflict(
        `subnet ${wanted.subnetText} overlaps ${overlapping.subnet} of interface "${overlapping.name}" on this node`,
        'subnet',
      );
    }
  }
}

/** The fields whose change alters what the node must look like. */
function snapshot(row: TunnelInterface) {
  // awg listed field by field: jsonb reorders keys, so comparing the objects' JSON would see a change that is none.
  const awg = row.awg ? AWG_FIELDS.map((field) => row.awg![field]) : null;
  return [
    row.name,
    row.listenPort,
    row.subnet,
    row.endpointHost,
    row.mtu,
    row.dns,
    row.natInterface ?? null,
    row.enabled,
    awg,
  ];
}

function parseSubnet(text: string): Cidr {
  try {
    return parseInterfaceSubnet(text);
  } catch (error) {
    if (error instanceof Ipv4FormatError) throw badRequest(error.message, 'subnet');
    throw error;
  }
}

/** Operator-supplied AmneziaWG parameters, checked against the same bounds generation uses; every failing one reported. */
function checkedAwg(input: AmneziaParams): AmneziaParams {
  const params = Object.fromEntries(AWG_FIELDS.map((field) => [field, input[field]])) as unknown as AmneziaParams;
  const failures = amneziaFailures(params);
  if (failures.length) throw badRequest(failures[0]!.message, failures[0]!.field, failures);
  return params;
}
