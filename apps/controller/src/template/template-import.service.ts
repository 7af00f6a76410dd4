import { Injectable } from '@nestjs/common';
import type { UserRole } from '#libs/contracts/user-roles.js';
import { badRequest } from '../http/api-error.js';
import { HostsService } from '../interfaces/hosts.service.js';
import { InterfacesService } from '../interfaces/interfaces.service.js';
import { NodesService } from '../nodes/nodes.service.js';
import { OutboundsService } from '../outbounds/outbounds.service.js';
import { RoutingService } from '../routing/routing.service.js';
import { SettingsService } from '../settings/settings.service.js';
import { TEMPLATE_SECTIONS, type TemplateImportDto, type TemplateSection } from './dto/template.dto.js';
import type { TemplateImportResultDto, TemplateSectionCountsDto } from './dto/template.response.js';
import { underPath } from './row-validation.js';
import { key, TemplatePlanService, type Plan } from './template-plan.service.js';
import { TemplateRepository } from './template.repository.js';

const counts = (): TemplateSectionCountsDto => ({
  nodes: 0,
  interfaces: 0,
  hosts: 0,
  outbounds: 0,
  routing: 0,
  rules: 0,
  settings: 0,
});

/**
 * PUT /api/template (docs/template.md): the plan (TemplatePlanService) checks every row before the
 * first write; then the rows are applied through the domain services in dependency order. Rows
 * are matched by name; nothing is deleted.
 */
@Injectable()
export class TemplateImportService {
  constructor(
    private readonly planner: TemplatePlanService,
    private readonly nodes: NodesService,
    private readonly interfaces: InterfacesService,
    private readonly hosts: HostsService,
    private readonly outbounds: OutboundsService,
    private readonly routing: RoutingService,
    private readonly settings: SettingsService,
    private readonly repository: TemplateRepository,
  ) {}

  async import(
    body: TemplateImportDto,
    section: TemplateSection | undefined,
    role: UserRole,
    panelUrl: string,
  ): Promise<TemplateImportResultDto> {
    if (section) {
      const other = TEMPLATE_SECTIONS.find((name) => name !== section && body[name] !== undefined);
      if (other) throw badRequest(`?section=${section} imports ${section} only; ${other} was given`, other);
    }
    const plan = await this.planner.plan(body, role);
    return this.apply(plan, role, panelUrl);
  }

  private async apply(plan: Plan, role: UserRole, panelUrl: string): Promise<TemplateImportResultDto> {
    const result: TemplateImportResultDto = { created: counts(), updated: counts(), skipped: plan.skipped };
    const tally = (section: keyof TemplateSectionCountsDto, existingId: string | undefined) =>
      (existingId ? result.updated : result.created)[section]++;

    for (const step of plan.nodes) {
      await underPath(step.path, () =>
        step.existingId ? this.nodes.update(step.existingId, step.body) : this.nodes.create(step.body, panelUrl),
      );
      tally('nodes', step.existingId);
    }
    // Names resolved only now: nodes (and below, interfaces) made above have ids from here on.
    const nodeIds = new Map((await this.nodes.list()).map((node) => [node.name, node.id]));
    const nodeId = (name: string) => nodeIds.get(name)!;

    for (const step of plan.interfaces) {
      const iface = await underPath(step.path, () =>
        step.existingId
          ? this.interfaces.update(step.existingId, step.body)
          : this.interfaces.create({ ...step.body, nodeId: nodeId(step.node) }),
      );
      if (step.privateKey) await this.repository.setInterfaceKey(iface.id, step.privateKey);
      tally('interfaces', step.existingId);
    }
    const ifaceIds = new Map((await this.interfaces.list()).map((row) => [key(row.nodeId, row.name), row.id]));
    const ifaceId = (node: string, name: string) => ifaceIds.get(key(nodeId(node), name));

    for (const step of plan.hosts) {
      const { interfaceId: _placeholder, ...fields } = step.body;
      await underPath(step.path, () =>
        step.existingId
          ? this.hosts.update(step.existingId, fields)
          : this.hosts.create({ ...fields, interfaceId: ifaceId(step.node, step.iface)! }),
      );
      tally('hosts', step.existingId);
    }
    for (const step of plan.outbounds) {
      await underPath(step.path, () =>
        step.existingId
          ? this.outbounds.update(step.existingId, step.body)
          : this.outbounds.create({ ...step.body, nodeId: nodeId(step.node) }),
      );
      tally('outbounds', step.existingId);
    }
    for (const step of plan.basics) {
      await underPath(step.path, () => this.routing.updateBasic(nodeId(step.node), step.body));
      result.updated.routing++;
    }

    const clientIds = await this.repository.clientIdsByName([
      ...new Set(plan.rules.flatMap((step) => step.clientNames)),
    ]);
    for (const step of plan.rules) {
      // A rule naming a client this panel lacks would match more (or less) than it says: left out whole.
      const missing = step.clientNames.find((name) => !clientIds.has(name));
      if (missing !== undefined) {
        result.skipped.push({ path: step.path, reason: `there is no client named "${missing}" in this panel` });
        continue;
      }
      const ambiguous = step.clientNames.find((name) => clientIds.get(name)!.length > 1);
      if (ambiguous !== undefined) {
        result.skipped.push({ path: step.path, reason: `more than one client is named "${ambiguous}"` });
        continue;
      }
      const body = {
        ...step.body,
        clients: step.clientNames.map((name) => clientIds.get(name)![0]),
        interfaces: step.interfaceNames.map((name) => ifaceId(step.node, name)!),
      };
      await underPath(step.path, () =>
        step.existingId
          ? this.routing.updateRule(step.existingId, body)
          : this.routing.createRule(nodeId(step.node), body),
      );
      tally('rules', step.existingId);
    }

    if (Object.keys(plan.settings).length > 0) {
      await underPath('settings', () => this.settings.update(plan.settings, role));
      result.updated.settings = Object.keys(plan.settings).length;
    }
    return result;
  }
}
