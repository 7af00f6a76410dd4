import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { OpenAPIObject } from '@nestjs/swagger';

const DOCUMENT_ID = 'warren:openapi';

interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  /** Number of `{param}` segments: literal paths win over parameterised ones. */
  params: number;
  responses: Record<string, { content?: Record<string, unknown> }>;
}

/** JSON pointer of a path inside the document (RFC 6901 escaping). */
function pointer(...segments: string[]): string {
  return '#/' + segments.map((segment) => segment.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
}

function mediaType(contentType: string | null): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

/**
 * Checks every answer the test client receives against the OpenAPI document of the panel that
 * gave it: the operation (method + path), the status and the media type must be declared, and a
 * JSON body must match its schema. So the document cannot drift from what the panel does.
 */
export class ResponseChecker {
  private readonly ajv: Ajv2020;
  private readonly operations: Operation[] = [];
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(document: OpenAPIObject) {
    // OpenAPI 3.1 schemas are JSON Schema 2020-12; strict off because they carry `example` and the like.
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    (addFormats as unknown as (ajv: Ajv2020) => void)(this.ajv);
    this.ajv.addFormat('binary', true);
    this.ajv.addSchema(document as object, DOCUMENT_ID);
    for (const [template, item] of Object.entries(document.paths)) {
      const source = template
        .split('/')
        .map((segment) => (segment.startsWith('{') ? '[^/]+' : segment.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&')))
        .join('/');
      for (const [method, operation] of Object.entries(
        item as Record<string, { responses?: Operation['responses'] }>,
      )) {
        if (!operation?.responses) continue;
        this.operations.push({
          method: method.toUpperCase(),
          template,
          pattern: new RegExp(`^${source}$`),
          params: (template.match(/\{/g) ?? []).length,
          responses: operation.responses,
        });
      }
    }
    this.operations.sort((a, b) => a.params - b.params);
  }

  /** Throws when the answer is not what the document declares. `path` is the URL path below the base path, e.g. /api/clients/1. */
  check(method: string, path: string, status: number, contentType: string | null, body: unknown): void {
    const where = `${method} ${path} → ${status}`;
    const operation = this.operations.find((candidate) => candidate.method === method && candidate.pattern.test(path));
    if (!operation) {
      // No such route: the router's own 404/405 still answer {error, field}.
      if (status < 400) throw new Error(`${where}: no operation in the OpenAPI document, yet it succeeded`);
      this.validate(`${where} (no operation)`, pointer('components', 'schemas', 'Error'), body);
      return;
    }
    const declared = operation.responses[String(status)];
    if (!declared) {
      throw new Error(
        `${where}: status not declared for ${method} ${operation.template} (declared: ${Object.keys(operation.responses).join(', ')})`,
      );
    }
    const content = declared.content ?? {};
    if (Object.keys(content).length === 0) {
      if (body !== undefined && body !== '') throw new Error(`${where}: declared without a body, yet one came`);
      return;
    }
    const type = mediaType(contentType);
    if (!(type in content))
      throw new Error(`${where}: content type "${type}" not declared (declared: ${Object.keys(content).join(', ')})`);
    if (type !== 'application/json') return; // files: the declared media type is the contract
    this.validate(
      where,
      pointer(
        'paths',
        operation.template,
        method.toLowerCase(),
        'responses',
        String(status),
        'content',
        type,
        'schema',
      ),
      body,
    );
  }

  private validate(where: string, schemaPointer: string, body: unknown): void {
    let validate = this.compiled.get(schemaPointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `${DOCUMENT_ID}${schemaPointer}` });
      this.compiled.set(schemaPointer, validate);
    }
    if (validate(body)) return;
    const problems = (validate.errors ?? [])
      .slice(0, 8)
      .map(
        (error) =>
          `${error.instancePath || '/'} ${error.message}${error.params ? ' ' + JSON.stringify(error.params) : ''}`,
      );
    throw new Error(
      `${where}: the body does not match the OpenAPI schema:\n  ${problems.join('\n  ')}\nbody: ${JSON.stringify(body)?.slice(0, 1500)}`,
    );
  }
}
