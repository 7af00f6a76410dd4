import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsArray, IsIn, IsObject, IsOptional } from 'class-validator';
import { OptionalNotNull } from '../../http/validators.js';
import {
  TemplateHostDto,
  TemplateInterfaceDto,
  TemplateNodeDto,
  TemplateOutboundDto,
  TemplateRoutingDto,
} from './template.response.js';
import { UpdateSettingsDto } from '../../settings/dto/settings.dto.js';

export const TEMPLATE_SECTIONS = ['nodes', 'interfaces', 'hosts', 'outbounds', 'routing', 'settings'] as const;
export type TemplateSection = (typeof TEMPLATE_SECTIONS)[number];

export class TemplateQueryDto {
  @ApiPropertyOptional({ description: 'One part only, answered (or taken) as {section: ...}' })
  @IsOptional()
  @IsIn(TEMPLATE_SECTIONS, { message: `section must be one of ${TEMPLATE_SECTIONS.join(', ')}` })
  section?: TemplateSection;
}

/**
 * PUT /api/template. Only the shape of the sections is checked here: every row is then checked
 * by the service with the DTO class of the route that creates or changes such a row, so that the
 * failing row's path (`interfaces.2.listenPort`) is the field, and nothing is written unless all pass.
 */
export class TemplateImportDto {
  @ApiPropertyOptional({ type: [TemplateNodeDto] })
  @OptionalNotNull()
  @IsArray()
  @IsObject({ each: true })
  nodes?: Record<string, unknown>[];
  @ApiPropertyOptional({ type: [TemplateInterfaceDto] })
  @OptionalNotNull()
  @IsArray()
  @IsObject({ each: true })
  interfaces?: Record<string, unknown>[];
  @ApiPropertyOptional({ type: [TemplateHostDto] })
  @OptionalNotNull()
  @IsArray()
  @IsObject({ each: true })
  hosts?: Record<string, unknown>[];
  @ApiPropertyOptional({ type: [TemplateOutboundDto] })
  @OptionalNotNull()
  @IsArray()
  @IsObject({ each: true })
  outbounds?: Record<string, unknown>[];
  @ApiPropertyOptional({ type: [TemplateRoutingDto] })
  @OptionalNotNull()
  @IsArray()
  @IsObject({ each: true })
  routing?: Record<string, unknown>[];
  /** Only the settings to change: each is checked as PUT /api/settings checks it, and the others keep their value. */
  @ApiPropertyOptional({ type: UpdateSettingsDto })
  @OptionalNotNull()
  @IsObject()
  settings?: Record<string, unknown>;
}
