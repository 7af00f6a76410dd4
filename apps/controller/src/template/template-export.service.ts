import { Injectable } from '@nestjs/common';
import { BUILTIN_OUTBOUNDS } from '#libs/contracts/routing.js';
import { HostsService } from '../interfaces/hosts.service.js';
import { InterfacesService } from '../interfaces/interfaces.service.js';
import { NodesService } from '../nodes/nodes.service.js';
import { OutboundsService } from '../outbounds/outbounds.service.js';
import { RoutingService } from '../routing/routing.service.js';
import { SettingsService } from '../settings/settings.service.js';
import { TEMPLATE_SECTIONS, type TemplateSection } from './dto/template.dto.js';
import type {
  TemplateDto,
  TemplateHostDto,
  TemplateInterfaceDto,
  TemplateNodeDto,
  TemplateOutboundDto,
  TemplateRoutingDto,
} from './dto/template.response.js';
import { TemplateRepository } from './template.repository.js';

/**
 * Builds the template from the services' own views, replacing ids by names. Secrets are read
 * (from the repository: no view carries them) only when `withSecrets`, which the controller sets
 * for the owner's session alone.
 */
@Injectable()
export class TemplateExportService {
  constructor(
    private readonly nodes: NodesService,
    private readonly interfaces: InterfacesService,
    private readonly hosts: HostsService,
    private readonly outbounds: OutboundsService,
    private readonly routing: RoutingService,
    private readonly settings: SettingsService,
    private readonly repository: TemplateRepository,
  ) {}

  async export(section: TemplateSection | undefined, withSecrets: boolean): Promise<TemplateDto> {
    const wanted = section ? [section] : TEMPLATE_SECTIONS;
    const nodes = await this.nodes.list();
    const nodeName = new Map(nodes.map((node) => [node.id, node.name]));
    const interfaces = await this.interfaces.list();
    const result: TemplateDto = {};
    for (const part of wanted) {
      switch (part) {
        case 'nodes':
          result.nodes = nodes.map((node): TemplateNodeDto => ({
            name: node.name,
            address: node.address,
            note: node.note,
          }));
          break;
        case 'interfaces': {
          const keys = withSecrets ? await this.repository.interfaceKeys() : undefined;
          result.interfaces = interfaces.map((row): TemplateInterfaceDto => ({
            node: nodeName.get(row.nodeId)!,
            name: row.name,
            mode: row.mode,
            listenPort: row.listenPort,
            subnet: row.subnet,
            endpointHost: row.endpointHost,
            mtu: row.mtu,
            dns: [...row.dns],
            natInterface: row.natInterface,
            enabled: row.enabled,
            ...(row.awg ? { awg: { ...row.awg } } : {}),
            ...(keys?.has(row.id) ? { privateKey: keys.get(row.id)! } : {}),
          }));
          break;
        }
        case 'hosts': {
          const byId = new Map(interfaces.map((row) => [row.id, row]));
          result.hosts = (await this.hosts.list()).map((host): TemplateHostDto => {
            const iface = byId.get(host.interfaceId)!;
            return {
              node: nodeName.get(iface.nodeId)!,
              interface: iface.name,
              name: host.name,
              address: host.address,
              port: host.port,
              priority: host.priority,
              enabled: host.enabled,
            };
          });
          break;
        }
        case 'outbounds':
          result.outbounds = await this.exportOutbounds(
            nodes.map((node) => node.id),
            nodeName,
            withSecrets,
          );
          break;
        case 'routing':
          result.routing = await this.exportRouting(
            nodes.map((node) => node.id),
            nodeName,
            interfaces,
          );
          break;
        case 'settings':
          result.settings = await this.settings.get();
          break;
      }
    }
    return result;
  }

  private async exportOutbounds(
    nodeIds: string[],
    nodeName: Map<string, string>,
    withSecrets: boolean,
  ): Promise<TemplateOutboundDto[]> {
    const secrets = withSecrets ? await this.repository.outboundSecrets() : undefined;
    const rows: TemplateOutboundDto[] = [];
    for (const nodeId of nodeIds) {
      for (const hop of await this.outbounds.list(nodeId)) {
        if ((BUILTIN_OUTBOUNDS as readonly string[]).includes(hop.kind)) continue;
        const secret = secrets?.get(hop.id);
        const row: TemplateOutboundDto = {
          node: nodeName.get(nodeId)!,
          tag: hop.tag,
          kind: hop.kind,
          enabled: hop.enabled,
          position: hop.position,
          address: hop.address ?? '',
          note: hop.note,
        };
        // Only the fields the hop's kind takes: the create route refuses the others by name.
        if (hop.kind === 'socks' || hop.kind === 'http') {
          row.username = hop.username;
          if (secret) row.password = secret.password;
        }
        if (hop.kind === 'shadowsocks') {
          row.method = hop.method ?? undefined;
          if (secret) row.password = secret.password;
        }
        if (hop.kind === 'wireguard' && hop.wireguard) {
          const wg = hop.wireguard;
          Object.assign(row, {
            peerPublicKey: wg.peerPublicKey,
            allowedIps: [...wg.allowedIps],
            tunnelAddress: wg.tunnelAddress,
            mtu: wg.mtu,
            keepalive: wg.keepalive,
          });
          if (secret)
            Object.assign(row, { privateKey: secret.privateKey ?? undefined, presharedKey: secret.presharedKey });
        }
        rows.push(row);
      }
    }
    return rows;
  }

  private async exportRouting(
    nodeIds: string[],
    nodeName: Map<string, string>,
    interfaces: { id: string; name: string }[],
  ): Promise<TemplateRoutingDto[]> {
    const interfaceName = new Map(interfaces.map((row) => [row.id, row.name]));
    const result: TemplateRoutingDto[] = [];
    for (const nodeId of nodeIds) {
      const routing = await this.routing.get(nodeId);
      const clientNames = await this.repository.clientNames([
        ...new Set(routing.rules.flatMap((rule) => rule.clients)),
      ]);
      result.push({
        node: nodeName.get(nodeId)!,
        basic: routing.basic,
        rules: routing.rules.map((rule) => ({
          name: rule.name,
          enabled: rule.enabled,
          sourceIps: rule.sourceIps,
          sourcePorts: rule.sourcePorts,
          network: rule.network,
          destIps: rule.destIps,
          domains: rule.domains,
          ports: rule.ports,
          // A client deleted since keeps its id in the rule; it has no name to carry.
          clients: rule.clients.flatMap((id) => (clientNames.has(id) ? [clientNames.get(id)!] : [])),
          groups: rule.groups,
          interfaces: rule.interfaces.flatMap((id) => (interfaceName.has(id) ? [interfaceName.get(id)!] : [])),
          outboundTag: rule.outboundTag,
        })),
      });
    }
    return result;
  }
}
