import { Injectable } from '@nestjs/common';
import { BUILTIN_OUTBOUNDS } from '#libs/contracts/routing.js';
import type { UserRole } from '#libs/contracts/user-roles.js';
import { parseInterfaceSubnet } from '#libs/wireguard/address-pool.js';
import { validateAmneziaParams, type AmneziaParams } from '#libs/wireguard/amnezia.js';
import { cidrsOverlap, type Cidr } from '#libs/wireguard/ipv4.js';
import { normalizeCidr, normalizeDomain, normalizeList, normalizePortRange } from '../common/network-text.js';
import { ApiError, badRequest, conflict, forbidden } from '../http/api-error.js';
import { CreateHostDto, UpdateHostDto } from '../interfaces/dto/host.dto.js';
import { CreateInterfaceDto, UpdateInterfaceDto } from '../interfaces/dto/interface.dto.js';
import { HostsService } from '../interfaces/hosts.service.js';
import { InterfacesService } from '../interfaces/interfaces.service.js';
import { CreateNodeDto, UpdateNodeDto } from '../nodes/dto/node.dto.js';
import { NodesService } from '../nodes/nodes.service.js';
import { CreateOutboundDto, UpdateOutboundDto, WG_KEY } from '../outbounds/dto/outbound.dto.js';
import { assertAllowedHopHost, assertReachableByKind, parseHopAddress } from '../outbounds/hop-address.js';
import {
  assertFieldsFit,
  assertUsableHopKeys,
  isBuiltinTag,
  assertSecretGivenForNewAddress,
  OutboundsService,
  type OutboundView,
} from '../outbounds/outbounds.service.js';
import { CreateRuleDto, UpdateRoutingDto, UpdateRuleDto } from '../routing/dto/routing.dto.js';
import { RoutingService } from '../routing/routing.service.js';
import { UpdateSettingsDto } from '../settings/dto/settings.dto.js';
import type { PanelSettings } from '../settings/panel-settings.js';
import { OWNER_SETTINGS, SettingsService } from '../settings/settings.service.js';
import type { TemplateImportDto } from './dto/template.dto.js';
import { atPath, nameField, underPath, validRow, without } from './row-validation.js';

type Row = Record<string, unknown>;
export type Step = { path: string; existingId?: string };
export interface NodeStep extends Step {
  body: CreateNodeDto;
}
export interface InterfaceStep extends Step {
  node: string;
  body: CreateInterfaceDto;
  privateKey?: string;
}
export interface HostStep extends Step {
  node: string;
  iface: string;
  body: CreateHostDto;
}
export interface OutboundStep extends Step {
  node: string;
  body: CreateOutboundDto;
}
export interface BasicStep {
  path: string;
  node: string;
  body: UpdateRoutingDto;
}
export interface RuleStep extends Step {
  node: string;
  body: CreateRuleDto;
  clientNames: string[];
  interfaceNames: string[];
}

/** What an import will do, worked out (and every row checked) before anything is written. */
export interface Plan {
  nodes: NodeStep[];
  interfaces: InterfaceStep[];
  hosts: HostStep[];
  outbounds: OutboundStep[];
  basics: BasicStep[];
  rules: RuleStep[];
  settings: Partial<PanelSettings>;
  skipped: { path: string; reason: string }[];
}

/** The lists routing normalises (routing.service.ts), checked here so a bad entry fails the plan, not the apply. */
const LIST_RULES = {
  sourceIps: normalizeCidr,
  destIps: normalizeCidr,
  blockIps: normalizeCidr,
  directIps: normalizeCidr,
  sourcePorts: normalizePortRange,
  ports: normalizePortRange,
  blockPorts: normalizePortRange,
  domains: normalizeDomain,
  blockDomains: normalizeDomain,
  directDomains: normalizeDomain,
} as const;

export function checkLists(dto: object, path: string): void {
  for (const [field, normalize] of Object.entries(LIST_RULES)) {
    const values = (dto as Record<string, unknown>)[field];
    if (!Array.isArray(values)) continue;
    try {
      normalizeList(values as string[], field, normalize);
    } catch (error) {
      throw error instanceof ApiError ? atPath(error, path) : error;
    }
  }
}

const RULE_CRITERIA = [
  'sourceIps',
  'sourcePorts',
  'destIps',
  'domains',
  'ports',
  'clients',
  'groups',
  'interfaces',
] as const;
/** One key for a row's names (node, interface, host…), whatever characters they hold. */
export const key = (...parts: string[]) => JSON.stringify(parts);

/**
 * The first half of an import (docs/template.md): every row checked, with the DTO class its own
 * route uses and against the names it refers to and what the services would refuse, into a plan
 * the import service applies. Nothing is written here.
 */
@Injectable()
export class TemplatePlanService {
  constructor(
    private readonly nodes: NodesService,
    private readonly interfaces: InterfacesService,
    private readonly hosts: HostsService,
    private readonly outbounds: OutboundsService,
    private readonly routing: RoutingService,
    private readonly settings: SettingsService,
  ) {}

  async plan(body: TemplateImportDto, role: UserRole): Promise<Plan> {
    const plan: Plan = {
      nodes: [],
      interfaces: [],
      hosts: [],
      outbounds: [],
      basics: [],
      rules: [],
      settings: {},
      skipped: [],
    };

    // What the panel has, by name.
    const nodes = await this.nodes.list();
    const nodeIds = new Map(nodes.map((node) => [node.name, node.id]));
    const nodeNames = new Set(nodeIds.keys());
    const ifaceRows = await this.interfaces.list();
    const nodeNameOf = new Map(nodes.map((node) => [node.id, node.name]));
    const ifaces = new Map(ifaceRows.map((row) => [key(nodeNameOf.get(row.nodeId)!, row.name), row]));
    const hostRows = await this.hosts.list();
    const ifaceById = new Map(ifaceRows.map((row) => [row.id, row]));
    const hosts = new Map(
      hostRows.map((host) => {
        const iface = ifaceById.get(host.interfaceId)!;
        return [key(nodeNameOf.get(iface.nodeId)!, iface.name, host.name.toLowerCase()), host.id];
      }),
    );
    const hops = new Map<string, Pick<OutboundView, 'id' | 'kind' | 'address' | 'hasPassword'>>();
    const rules = new Map<string, string>();
    for (const node of nodes) {
      for (const hop of await this.outbounds.list(node.id)) hops.set(key(node.name, hop.tag), hop);
      for (const rule of (await this.routing.get(node.id)).rules)
        if (!rules.has(key(node.name, rule.name))) rules.set(key(node.name, rule.name), rule.id);
    }

    for (const [i, row] of (body.nodes ?? []).entries()) {
      const path = `nodes.${i}`;
      const name = nameField(row, 'name', path);
      if (plan.nodes.some((step) => step.body.name === name))
        throw badRequest(`node "${name}" is listed twice`, `${path}.name`);
      const existingId = nodeIds.get(name);
      const dto = await validRow<CreateNodeDto>(existingId ? (UpdateNodeDto as never) : CreateNodeDto, row, path);
      plan.nodes.push({ path, existingId, body: dto });
      nodeNames.add(name);
    }

    // Interfaces: each node's final set must keep names, ports and subnets apart.
    const placements = new Map<string, { name: string; listenPort: number; subnet: Cidr; path?: string }[]>();
    for (const row of ifaceRows) {
      const node = nodeNameOf.get(row.nodeId)!;
      placements.set(node, [
        ...(placements.get(node) ?? []),
        { name: row.name, listenPort: row.listenPort, subnet: parseInterfaceSubnet(row.subnet) },
      ]);
    }
    const ifaceNames = new Set(ifaces.keys());
    for (const [i, row] of (body.interfaces ?? []).entries()) {
      const path = `interfaces.${i}`;
      const node = this.knownNode(nameField(row, 'node', path), nodeNames, `${path}.node`);
      const privateKey = row.privateKey;
      if (privateKey !== undefined && (typeof privateKey !== 'string' || !WG_KEY.test(privateKey))) {
        throw badRequest('privateKey must be a WireGuard key (base64 of 32 bytes)', `${path}.privateKey`);
      }
      const existing = typeof row.name === 'string' ? ifaces.get(key(node, row.name)) : undefined;
      const rest = without(row, 'node', 'privateKey', ...(row.awg === null ? ['awg'] : []));
      const dto = await validRow<CreateInterfaceDto>(
        existing ? (UpdateInterfaceDto as never) : CreateInterfaceDto,
        rest,
        path,
      );
      if (plan.interfaces.some((step) => step.node === node && step.body.name === dto.name))
        throw badRequest(`interface "${dto.name}" of node "${node}" is listed twice`, `${path}.name`);
      const mode = existing?.mode ?? dto.mode ?? 'standard';
      if (existing && dto.mode !== undefined && dto.mode !== existing.mode) {
        throw badRequest(
          `interface "${existing.name}" of node "${node}" is ${existing.mode}; its mode cannot change`,
          `${path}.mode`,
        );
      }
      if (dto.awg && mode !== 'amnezia') throw badRequest('awg parameters apply only to amnezia mode', `${path}.awg`);
      if (dto.awg) {
        const field = validateAmneziaParams(dto.awg as AmneziaParams);
        if (field) throw badRequest(`awg.${field} is out of bounds`, `${path}.awg.${field}`);
      }
      if (existing && dto.subnet !== undefined && dto.subnet !== existing.subnet && existing.allocated > 0) {
        throw conflict(
          `the subnet of interface "${existing.name}" cannot change while ${existing.allocated} addresses are allocated from it`,
          `${path}.subnet`,
        );
      }
      const subnetText = dto.subnet ?? existing!.subnet;
      const subnet = await underPath(path, () => {
        try {
          return parseInterfaceSubnet(subnetText);
        } catch (error) {
          throw badRequest((error as Error).message, 'subnet');
        }
      });
      const others = (placements.get(node) ?? []).filter((other) => other.name !== dto.name);
      const port = dto.listenPort ?? existing!.listenPort;
      const samePort = others.find((other) => other.listenPort === port);
      if (samePort)
        throw badRequest(
          `listen port ${port} is also used by interface "${samePort.name}" of node "${node}"`,
          `${path}.listenPort`,
        );
      const overlapping = others.find((other) => cidrsOverlap(subnet, other.subnet));
      if (overlapping)
        throw badRequest(
          `subnet ${subnetText} overlaps interface "${overlapping.name}" of node "${node}"`,
          `${path}.subnet`,
        );
      placements.set(node, [...others, { name: dto.name, listenPort: port, subnet, path }]);
      plan.interfaces.push({
        path,
        node,
        existingId: existing?.id,
        body: dto,
        ...(privateKey ? { privateKey: privateKey as string } : {}),
      });
      ifaceNames.add(key(node, dto.name));
    }

    for (const [i, row] of (body.hosts ?? []).entries()) {
      const path = `hosts.${i}`;
      const node = this.knownNode(nameField(row, 'node', path), nodeNames, `${path}.node`);
      const iface = nameField(row, 'interface', path);
      if (!ifaceNames.has(key(node, iface)))
        throw badRequest(`node "${node}" has no interface "${iface}"`, `${path}.interface`);
      const existingId = typeof row.name === 'string' ? hosts.get(key(node, iface, row.name.toLowerCase())) : undefined;
      const rest = without(row, 'node', 'interface');
      const dto = existingId
        ? await validRow<CreateHostDto>(UpdateHostDto as never, rest, path)
        : await validRow(CreateHostDto, { ...rest, interfaceId: 'template' }, path);
      if (
        plan.hosts.some(
          (step) =>
            step.node === node && step.iface === iface && step.body.name.toLowerCase() === dto.name.toLowerCase(),
        )
      ) {
        throw badRequest(`host "${dto.name}" of interface "${iface}" is listed twice`, `${path}.name`);
      }
      plan.hosts.push({ path, node, iface, existingId, body: dto });
    }

    const tags = new Set([...hops.keys()]);
    // What the apply will see: settings are written last. A template that turns private targets
    // off is held to that already (its hops would only fail on their nodes afterwards).
    const turnsOff = (body.settings as Record<string, unknown> | undefined)?.allowPrivateTargets === false;
    const allowPrivateTargets = (await this.settings.get()).allowPrivateTargets && !turnsOff;
    for (const [i, row] of (body.outbounds ?? []).entries()) {
      const path = `outbounds.${i}`;
      const node = this.knownNode(nameField(row, 'node', path), nodeNames, `${path}.node`);
      if (isBuiltinTag(row.tag))
        throw badRequest(
          `the built-in outbound "${row.tag as string}" (in any case) is not part of a template`,
          `${path}.tag`,
        );
      const existing = typeof row.tag === 'string' ? hops.get(key(node, row.tag)) : undefined;
      const dto = await validRow<CreateOutboundDto>(
        existing ? (UpdateOutboundDto as never) : CreateOutboundDto,
        without(row, 'node'),
        path,
      );
      if (existing && dto.kind !== undefined && dto.kind !== existing.kind)
        throw badRequest(
          `outbound "${dto.tag}" of node "${node}" is ${existing.kind}; its kind cannot change`,
          `${path}.kind`,
        );
      if (plan.outbounds.some((step) => step.node === node && step.body.tag === dto.tag))
        throw badRequest(`outbound "${dto.tag}" of node "${node}" is listed twice`, `${path}.tag`);
      await underPath(path, async () => {
        assertFieldsFit((existing?.kind ?? dto.kind) as CreateOutboundDto['kind'], dto);
        // An existing hop's other key is checked again when the import changes it (OutboundsService.update).
        assertUsableHopKeys(dto.privateKey, dto.peerPublicKey, 'peerPublicKey');
        if (dto.address !== undefined) {
          const address = parseHopAddress(dto.address);
          assertReachableByKind(existing?.kind ?? dto.kind, address.host);
          if (existing) {
            const stored = existing.address === null ? null : parseHopAddress(existing.address);
            assertSecretGivenForNewAddress(
              existing.kind,
              { host: stored?.host ?? null, port: stored?.port ?? null, hasPassword: existing.hasPassword },
              address,
              dto.password,
            );
          }
          if (!allowPrivateTargets) await assertAllowedHopHost(address.host);
        }
        if (dto.tunnelAddress !== undefined) normalizeCidr(dto.tunnelAddress, 'tunnelAddress');
        if (dto.allowedIps !== undefined && normalizeList(dto.allowedIps, 'allowedIps', normalizeCidr).length === 0) {
          throw badRequest('allowedIps needs at least one network (0.0.0.0/0 for everything)', 'allowedIps');
        }
      });
      if (!existing) {
        const required = {
          shadowsocks: ['method', 'password'],
          wireguard: ['peerPublicKey', 'tunnelAddress'],
          socks: [],
          http: [],
        }[dto.kind] as (keyof CreateOutboundDto)[];
        const missing = required.find((field) => dto[field] == null);
        if (missing) throw badRequest(`${missing} is required for a new ${dto.kind} outbound`, `${path}.${missing}`);
      }
      plan.outbounds.push({ path, node, existingId: existing?.id, body: dto });
      tags.add(key(node, dto.tag));
    }

    const routedNodes = new Set<string>();
    for (const [i, row] of (body.routing ?? []).entries()) {
      const path = `routing.${i}`;
      const node = this.knownNode(nameField(row, 'node', path), nodeNames, `${path}.node`);
      if (routedNodes.has(node)) throw badRequest(`routing of node "${node}" is listed twice`, `${path}.node`);
      routedNodes.add(node);
      const stray = Object.keys(row).find((field) => !['node', 'basic', 'rules'].includes(field));
      if (stray) throw badRequest(`unknown field "${stray}"`, `${path}.${stray}`);
      const knownTag = (tag: string) =>
        (BUILTIN_OUTBOUNDS as readonly string[]).includes(tag) || tags.has(key(node, tag));
      if (row.basic !== undefined) {
        if (row.basic === null || typeof row.basic !== 'object' || Array.isArray(row.basic))
          throw badRequest('basic must be an object', `${path}.basic`);
        const basic = await validRow(UpdateRoutingDto, row.basic as Row, `${path}.basic`);
        checkLists(basic, `${path}.basic`);
        if (basic.defaultOutbound !== undefined && !knownTag(basic.defaultOutbound)) {
          throw badRequest(
            `node "${node}" has no outbound tagged "${basic.defaultOutbound}"`,
            `${path}.basic.defaultOutbound`,
          );
        }
        plan.basics.push({ path: `${path}.basic`, node, body: basic });
      }
      if (row.rules !== undefined && !Array.isArray(row.rules))
        throw badRequest('rules must be an array', `${path}.rules`);
      const names = new Set<string>();
      for (const [j, rule] of ((row.rules ?? []) as unknown[]).entries()) {
        const rulePath = `${path}.rules.${j}`;
        if (rule === null || typeof rule !== 'object' || Array.isArray(rule))
          throw badRequest('a rule must be an object', rulePath);
        const named = rule as Row;
        // Names, not ids: checked here, turned into ids when applied.
        const clientNames = this.names(named, 'clients', rulePath);
        const interfaceNames = this.names(named, 'interfaces', rulePath);
        const existingId = typeof named.name === 'string' ? rules.get(key(node, named.name.trim())) : undefined;
        const dto = await validRow<CreateRuleDto>(
          existingId ? (UpdateRuleDto as never) : CreateRuleDto,
          without(named, 'clients', 'interfaces'),
          rulePath,
        );
        if (dto.name !== undefined && dto.name.trim() === '')
          throw badRequest('name must not be blank', `${rulePath}.name`);
        checkLists(dto, rulePath);
        if (names.has(dto.name.trim()))
          throw badRequest(`rule "${dto.name}" is listed twice for node "${node}"`, `${rulePath}.name`);
        names.add(dto.name.trim());
        if (dto.outboundTag !== undefined && !knownTag(dto.outboundTag))
          throw badRequest(`node "${node}" has no outbound tagged "${dto.outboundTag}"`, `${rulePath}.outboundTag`);
        const missingIface = interfaceNames.findIndex((name) => !ifaceNames.has(key(node, name)));
        if (missingIface >= 0)
          throw badRequest(
            `node "${node}" has no interface "${interfaceNames[missingIface]}"`,
            `${rulePath}.interfaces.${missingIface}`,
          );
        const criteria = { ...dto, clients: clientNames, interfaces: interfaceNames } as Record<string, unknown>;
        if (
          !existingId &&
          !RULE_CRITERIA.some((field) => (criteria[field] as unknown[] | undefined)?.length) &&
          dto.network == null
        ) {
          throw badRequest(
            `a rule needs at least one criterion (${RULE_CRITERIA.join(', ')}, network)`,
            `${rulePath}.sourceIps`,
          );
        }
        plan.rules.push({ path: rulePath, node, existingId, body: dto, clientNames, interfaceNames });
      }
    }

    if (body.settings !== undefined) {
      const wanted = await validRow(UpdateSettingsDto, body.settings, 'settings');
      const current = await this.settings.get();
      plan.settings = Object.fromEntries(
        Object.entries(wanted).filter(
          ([name, value]) => value !== undefined && current[name as keyof PanelSettings] !== value,
        ),
      ) as Partial<PanelSettings>;
      // Unchanged owner-only values pass, so an admin can import an export as it is.
      const ownersOnly = OWNER_SETTINGS.find((name) => name in plan.settings);
      if (ownersOnly && role !== 'owner')
        throw forbidden(`only the owner may change ${ownersOnly}`, `settings.${ownersOnly}`);
      if (plan.settings.probeUrl !== undefined) {
        await this.settings.assertUsableProbeUrl(
          plan.settings.probeUrl,
          plan.settings.allowPrivateTargets ?? current.allowPrivateTargets,
          'settings.probeUrl',
        );
      }
    }
    return plan;
  }

  private knownNode(name: string, known: Set<string>, field: string): string {
    if (!known.has(name))
      throw badRequest(`there is no node named "${name}" (in this panel or the template's nodes)`, field);
    return name;
  }

  /** A rule's list of names (clients, interfaces); absent is none. */
  private names(rule: Row, field: string, path: string): string[] {
    const value = rule[field];
    if (value === undefined) return [];
    if (!Array.isArray(value) || value.length > 4096)
      throw badRequest(`${field} must be a list of names`, `${path}.${field}`);
    value.forEach((item, index) => {
      if (typeof item !== 'string' || item.length === 0 || item.length > 128)
        throw badRequest(`${field}.${index} must be a name`, `${path}.${field}.${index}`);
    });
    return [...new Set(value as string[])];
  }
}
