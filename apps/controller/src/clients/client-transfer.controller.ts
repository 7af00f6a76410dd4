import { Controller, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CLIENT_MANAGERS } from '#libs/contracts/user-roles.js';
import { CallerScope, type OperatorScope } from '../auth/operator-scope.js';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import type { Principal } from '../auth/principal.js';
import { IMPORT_MEDIA_TYPES } from '../http/raw-upload.js';
import { Route } from '../http/route.decorator.js';
import { ExportClientsQuery, ImportClientsQuery } from './dto/client-transfer.dto.js';
import { ClientExportDto, ImportResultDto } from './dto/client-transfer.response.js';
import { ClientExportService } from './transfer/client-export.service.js';
import { ClientImportService } from './transfer/client-import.service.js';
import { uploadBytes } from './transfer/upload-bytes.js';

/** Clients out to a file and in from one, Warren's or another panel's (docs/import.md). */
@Controller()
export class ClientTransferController {
  constructor(
    private readonly exporter: ClientExportService,
    private readonly importer: ClientImportService,
  ) {}

  @Route({
    method: 'GET',
    path: 'clients/export',
    group: 'clients',
    roles: CLIENT_MANAGERS,
    summary:
      "Every client in the caller's scope (a reseller: their own) with its devices and accounts, as JSON (imports back) or CSV; private and preshared keys only for the owner's session",
    query: { format: 'json (default) or csv', group: 'only the clients whose groups include this one' },
    response: ClientExportDto,
    files: ['text/csv'],
  })
  async export(
    @CurrentPrincipal() principal: Principal,
    @CallerScope() scope: OperatorScope,
    @Query() query: ExportClientsQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    // As the template decides it: an API token can leak into scripts and logs, so even the owner's never reads keys.
    const withKeys = principal.role === 'owner' && principal.via === 'session';
    const stamp = new Date().toISOString().slice(0, 10);
    if (query.format === 'csv') {
      reply.header('content-type', 'text/csv; charset=utf-8');
      reply.header('content-disposition', `attachment; filename="warren-clients-${stamp}.csv"`);
      return this.exporter.csv(scope, withKeys, query.group);
    }
    reply.header('content-disposition', `attachment; filename="warren-clients-${stamp}.json"`);
    return this.exporter.json(scope, withKeys, query.group);
  }

  @Route({
    method: 'POST',
    path: 'clients/import',
    group: 'clients',
    roles: CLIENT_MANAGERS,
    summary:
      "Import clients from Warren's export, wg-easy (v14 wg0.json, v15 database) or W-UI onto one interface, keeping keys and addresses; dryRun=true previews, an apply writes all rows or none; a reseller's matches and updates their own clients, within their ceilings",
    query: {
      interfaceId: 'the interface the clients are imported onto (required)',
      dryRun: 'true: say what would be created, updated and refused, and write nothing',
      format: 'warren | wg-easy-json | wg-easy-sqlite | w-ui (default: recognised from the file)',
      sourceInterface: "the file's interface to take when its clients have several",
    },
    response: ImportResultDto,
    uploads: IMPORT_MEDIA_TYPES,
    errors: [404, 409],
    audit: { fields: false },
  })
  async import(
    @CallerScope() scope: OperatorScope,
    @Query() query: ImportClientsQuery,
    @Req() request: FastifyRequest,
  ) {
    const bytes = await uploadBytes(request.body);
    return this.importer.import(
      bytes,
      {
        interfaceId: query.interfaceId,
        format: query.format,
        sourceInterface: query.sourceInterface,
        dryRun: query.dryRun === 'true',
      },
      scope,
    );
  }
}
