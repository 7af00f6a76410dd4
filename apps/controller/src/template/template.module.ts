import { Module } from '@nestjs/common';
import { InterfacesModule } from '../interfaces/interfaces.module.js';
import { NodesModule } from '../nodes/nodes.module.js';
import { OutboundsModule } from '../outbounds/outbounds.module.js';
import { RoutingModule } from '../routing/routing.module.js';
import { SettingsModule } from '../settings/settings.module.js';
import { TemplateController } from './template.controller.js';
import { TemplateExportService } from './template-export.service.js';
import { TemplateImportService } from './template-import.service.js';
import { TemplatePlanService } from './template-plan.service.js';
import { TemplateRepository } from './template.repository.js';

/** The configuration as one document: read and written through the domains' own services. */
@Module({
  imports: [NodesModule, InterfacesModule, OutboundsModule, RoutingModule, SettingsModule],
  controllers: [TemplateController],
  providers: [TemplateExportService, TemplatePlanService, TemplateImportService, TemplateRepository],
})
export class TemplateModule {}
