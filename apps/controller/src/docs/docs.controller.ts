import { Controller, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { Route } from '../http/route.decorator.js';
import { requestOrigin } from '../http/request-origin.js';
import { DocsService } from './docs.service.js';
import { DocsListingDto, OpenApiDocumentDto } from './dto/docs.response.js';

@Controller()
export class DocsController {
  constructor(private readonly docs: DocsService) {}

  @Route({ method: 'GET', path: 'docs', group: 'docs', summary: 'Every endpoint, grouped, with an example body and a ready curl command', response: DocsListingDto })
  listing(@Req() request: FastifyRequest) {
    return this.docs.listing(requestOrigin(request));
  }

  @Route({ method: 'GET', path: 'openapi.json', group: 'docs', summary: 'The OpenAPI 3.1 document, built from the same route table', response: OpenApiDocumentDto })
  openApi(@Req() request: FastifyRequest) {
    return this.docs.openApi(requestOrigin(request));
  }
}
