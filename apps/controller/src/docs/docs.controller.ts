import { Controller, Inject, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { EVERY_ROLE } from '#libs/contracts/user-roles.js';
import { Route } from '../http/route.decorator.js';
import type { WarrenConfig } from '../config/config.js';
import { requestOrigin } from '../http/request-origin.js';
import { WARREN_CONFIG } from '../runtime.js';
import { DocsService } from './docs.service.js';
import { DocsListingDto, OpenApiDocumentDto } from './dto/docs.response.js';

@Controller()
export class DocsController {
  constructor(
    private readonly docs: DocsService,
    @Inject(WARREN_CONFIG) private readonly config: WarrenConfig,
  ) {}

  @Route({ method: 'GET', path: 'docs', group: 'docs', roles: EVERY_ROLE, summary: 'Every endpoint, grouped, with an example body and a ready curl command', response: DocsListingDto })
  listing(@Req() request: FastifyRequest) {
    return this.docs.listing(requestOrigin(request, this.config.publicUrl));
  }

  @Route({ method: 'GET', path: 'openapi.json', group: 'docs', roles: EVERY_ROLE, summary: 'The OpenAPI 3.1 document, built from the same route table', response: OpenApiDocumentDto })
  openApi(@Req() request: FastifyRequest) {
    return this.docs.openApi(requestOrigin(request, this.config.publicUrl));
  }
}
