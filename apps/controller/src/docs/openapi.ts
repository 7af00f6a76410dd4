import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { BEARER_SCHEME } from '../http/route.decorator.js';
import { loadDtoMetadata } from './dto-metadata.js';

type Schema = Record<string, unknown>;

/**
 * Requests refuse unknown fields and responses carry exactly their DTO's fields, so every object
 * schema is closed: a client (and the test client's response check) learns of an extra field.
 */
function closeObjects(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(closeObjects);
  if (!node || typeof node !== 'object') return;
  const schema = node as Schema;
  if (schema.properties && typeof schema.properties === 'object' && schema.additionalProperties === undefined) {
    schema.additionalProperties = false;
  }
  for (const [key, value] of Object.entries(schema)) if (key !== 'example' && key !== 'examples') closeObjects(value);
}

/**
 * The OpenAPI 3.1 document of the panel, from @nestjs/swagger's scan of the `@Route` handlers.
 * Paths are relative to the panel's base path (`/api/...`); the server URL carries the rest.
 */
export async function createOpenApiDocument(app: INestApplication): Promise<OpenAPIObject> {
  await loadDtoMetadata();
  const config = new DocumentBuilder()
    .setTitle('Warren panel API')
    .setVersion('0.1.0')
    .setOpenAPIVersion('3.1.0')
    // Relative: served copies (GET /api/openapi.json) name the panel's full URL instead.
    .addServer('/', 'The panel, at its base path')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'opaque', description: 'A session token (POST /api/auth/login) or an API token (wrn_…)' }, BEARER_SCHEME)
    .build();
  // As package.json says: proprietary, no licence is granted (an SPDX reference of our own).
  config.info.license = { name: 'UNLICENSED', identifier: 'LicenseRef-UNLICENSED' } as typeof config.info.license;
  const scanned = SwaggerModule.createDocument(app, config, { ignoreGlobalPrefix: true, autoTagControllers: false });
  const paths = Object.fromEntries(Object.entries(scanned.paths).map(([path, item]) => [`/api${path}`, item]));
  const document: OpenAPIObject = { ...scanned, paths };
  closeObjects(document.components?.schemas);
  return document;
}
