import { Body, Controller, Inject, Query, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { MANAGERS, SIGNED_IN } from '#libs/contracts/user-roles.js';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import type { Principal } from '../auth/principal.js';
import type { WarrenConfig } from '../config/config.js';
import { requestOrigin } from '../http/request-origin.js';
import { Route } from '../http/route.decorator.js';
import { WARREN_CONFIG } from '../runtime.js';
import { TemplateImportDto, TemplateQueryDto } from './dto/template.dto.js';
import { TemplateDto, TemplateImportResultDto } from './dto/template.response.js';
import { TemplateExportService } from './template-export.service.js';
import { TemplateImportService } from './template-import.service.js';

const SECTION_QUERY = {
  section: 'nodes, interfaces, hosts, outbounds, routing or settings: that part only, as {section: ...}',
};

/** The whole configuration as one document (docs/template.md). */
@Controller()
export class TemplateController {
  constructor(
    private readonly exporter: TemplateExportService,
    private readonly importer: TemplateImportService,
    @Inject(WARREN_CONFIG) private readonly config: WarrenConfig,
  ) {}

  @Route({
    method: 'GET',
    path: 'template',
    group: 'template',
    roles: SIGNED_IN,
    summary:
      "The configuration (nodes, interfaces, hosts, outbounds, routing, settings) with rows naming each other by name; secrets only for the owner's session",
    query: SECTION_QUERY,
    response: TemplateDto,
  })
  get(@CurrentPrincipal() principal: Principal, @Query() query: TemplateQueryDto) {
    // An API token is a credential that can leak into scripts and logs: it never reads secrets, even the owner's.
    return this.exporter.export(query.section, principal.role === 'owner' && principal.via === 'session');
  }

  @Route({
    method: 'PUT',
    path: 'template',
    group: 'template',
    roles: MANAGERS,
    summary:
      'Import a template: rows matched by name are updated, new ones created, nothing deleted; every row is checked before anything is written',
    query: SECTION_QUERY,
    // Valid on a fresh panel as it is, for an admin too: rows of other sections name nodes, whose names differ per install.
    example: { settings: { probeTimeoutMs: 5000 } },
    response: TemplateImportResultDto,
    errors: [403, 404, 409],
  })
  put(
    @CurrentPrincipal() principal: Principal,
    @Query() query: TemplateQueryDto,
    @Body() body: TemplateImportDto,
    @Req() request: FastifyRequest,
  ) {
    return this.importer.import(
      body,
      query.section,
      principal.role,
      `${requestOrigin(request, this.config.publicUrl)}${this.config.basePath}`,
    );
  }
}
