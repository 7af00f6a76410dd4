import { Inject, Injectable } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import { shellQuote } from '../common/shell-quote.js';
import type { UserRole } from '#libs/contracts/user-roles.js';
import { PANEL_RUNTIME, type PanelRuntime } from '../runtime.js';
import { RouteTableService, type RouteEntry } from './route-table.service.js';

export interface DocsEndpoint {
  method: string;
  path: string;
  summary: string;
  auth: boolean;
  roles: readonly UserRole[];
  example: unknown;
  query: Record<string, string>;
  curl: string;
}

/** The API listing and OpenAPI document, both built from the route table. */
@Injectable()
export class DocsService {
  private document?: OpenAPIObject;

  constructor(
    private readonly routes: RouteTableService,
    @Inject(PANEL_RUNTIME) private readonly runtime: PanelRuntime,
  ) {}

  private curl(entry: RouteEntry, origin: string): string {
    const parts = ['curl'];
    if (this.runtime.selfSignedTls && origin.startsWith('https:')) parts.push('-k');
    if (entry.method !== 'GET') parts.push('-X', entry.method);
    if (entry.auth) parts.push('-H', '"Authorization: Bearer $WARREN_TOKEN"');
    if (entry.example !== undefined) {
      parts.push('-H', shellQuote('Content-Type: application/json'), '-d', shellQuote(JSON.stringify(entry.example)));
    }
    // A raw upload sends a file as it is; a file answer is saved under the name the panel gives.
    if (entry.uploads?.length) parts.push('-H', shellQuote(`Content-Type: ${entry.uploads[0]}`), '--data-binary', '@FILE');
    if (entry.files?.length) parts.push('-OJ');
    parts.push(shellQuote(origin + entry.fullPath));
    return parts.join(' ');
  }

  listing(origin: string) {
    const groups = new Map<string, DocsEndpoint[]>();
    for (const entry of this.routes.all()) {
      const endpoints = groups.get(entry.group) ?? [];
      endpoints.push({
        method: entry.method,
        path: entry.fullPath,
        summary: entry.summary,
        auth: entry.auth,
        roles: entry.allowedRoles,
        example: entry.example ?? null,
        query: entry.query ?? {},
        curl: this.curl(entry, origin),
      });
      groups.set(entry.group, endpoints);
    }
    return {
      baseUrl: origin + this.runtime.config.basePath,
      auth: 'Authorization: Bearer <session token or API token>',
      groups: [...groups].map(([name, endpoints]) => ({ name, endpoints })),
    };
  }

  /** Set once at start-up, when the application exists to be scanned (see createOpenApiDocument). */
  publishOpenApi(document: OpenAPIObject): void {
    this.document = document;
  }

  openApi(origin: string): OpenAPIObject {
    if (!this.document) throw new Error('the OpenAPI document was not published at start-up');
    return { ...this.document, servers: [{ url: origin + this.runtime.config.basePath }] };
  }
}
