import { Inject, Injectable } from '@nestjs/common';
import { PANEL_RUNTIME, type PanelRuntime } from '../runtime.js';
import { RouteTableService, type RouteEntry } from './route-table.service.js';

export interface DocsEndpoint {
  method: string;
  path: string;
  summary: string;
  auth: boolean;
  example: unknown;
  query: Record<string, string>;
  curl: string;
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The API listing and OpenAPI document, both built from the route table. */
@Injectable()
export class DocsService {
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

  openApi(origin: string) {
    const paths: Record<string, Record<string, unknown>> = {};
    for (const entry of this.routes.all()) {
      const path = entry.fullPath.slice(this.runtime.config.basePath.length);
      const parameters = [
        ...[...path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
        ...Object.entries(entry.query ?? {}).map(([name, description]) => ({ name, in: 'query', required: false, description, schema: { type: 'string' } })),
      ];
      (paths[path] ??= {})[entry.method.toLowerCase()] = {
        tags: [entry.group],
        summary: entry.summary,
        operationId: `${entry.method.toLowerCase()}_${path.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_|_$/g, '')}`,
        security: entry.auth ? [{ bearer: [] }] : [],
        ...(parameters.length ? { parameters } : {}),
        ...(entry.example !== undefined
          ? { requestBody: { required: true, content: { 'application/json': { example: entry.example } } } }
          : {}),
        responses: {
          [String(entry.status ?? 200)]: { description: 'success' },
          default: { description: 'error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
        },
      };
    }
    return {
      openapi: '3.1.0',
      info: { title: 'Warren panel API', version: '0.1.0' },
      servers: [{ url: origin + this.runtime.config.basePath }],
      paths,
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
        schemas: {
          Error: {
            type: 'object',
            required: ['error', 'field'],
            properties: { error: { type: 'string' }, field: { type: 'string' } },
          },
        },
      },
    };
  }
}
