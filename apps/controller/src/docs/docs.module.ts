import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { DocsController } from './docs.controller.js';
import { DocsService } from './docs.service.js';
import { RouteTableService } from './route-table.service.js';

/**
 * The route table, read from every controller's @Route declarations (hence discovery), and what is
 * built from it: GET /api/docs and the OpenAPI document. panel.ts publishes the document once the
 * application is built; nothing else uses this module's providers.
 */
@Module({
  imports: [DiscoveryModule],
  controllers: [DocsController],
  providers: [RouteTableService, DocsService],
})
export class DocsModule {}
