import type { TestPanel } from './test-panel.js';

/**
 * Every route the panel serves, read from the panel itself (GET /api/docs for the route table's
 * entries, GET /api/openapi.json for their parameters), so that the suites walking all routes
 * (fuzzing, the authorization matrix, the secrets crawl) cover a new route the day it appears.
 */
export interface Endpoint {
  method: string;
  /** The documented path, e.g. /api/clients/{id}. */
  path: string;
  /** False for the routes the table declares public. */
  auth: boolean;
  /** The route table's example body (null when the route takes none). */
  example: unknown;
  /** The ready curl command GET /api/docs prints for it. */
  curl: string;
  /** Query parameters with their schemas, from the OpenAPI document. */
  query: { name: string; schema: Record<string, unknown> }[];
  /** The OpenAPI operation's extensions and fields, for suites that read more (roles...). */
  operation: Record<string, unknown>;
}

export const routeKey = (endpoint: Pick<Endpoint, 'method' | 'path'>): string => `${endpoint.method} ${endpoint.path}`;

export async function readEndpoints(t: TestPanel, token: string): Promise<Endpoint[]> {
  const docs = await t.call('GET', 'docs', { token });
  const openapi = await t.call('GET', 'openapi.json', { token });
  if (docs.status !== 200 || openapi.status !== 200)
    throw new Error(`route catalogue: docs ${docs.status}, openapi ${openapi.status}`);
  const listed = docs.body.groups.flatMap(
    (group: { endpoints: Omit<Endpoint, 'query' | 'operation'>[] }) => group.endpoints,
  ) as Omit<Endpoint, 'query' | 'operation'>[];
  return listed.map((entry) => {
    const operation = (openapi.body.paths[entry.path]?.[entry.method.toLowerCase()] ?? {}) as Record<string, unknown>;
    const parameters = (operation.parameters ?? []) as { name: string; in: string; schema?: Record<string, unknown> }[];
    return {
      ...entry,
      query: parameters
        .filter((parameter) => parameter.in === 'query')
        .map((parameter) => ({ name: parameter.name, schema: parameter.schema ?? {} })),
      operation,
    };
  });
}

/** The path below /api with each `{param}` replaced by `fill(param)` (already URL-safe). */
export function concretePath(path: string, fill: (param: string) => string): string {
  return path.replace(/^\/api\//, '').replace(/\{([^}]+)\}/g, (_, param: string) => fill(param));
}

/** The first path segment below /api: the resource a route's `{id}` names (clients, devices...). */
export function resourceOf(path: string): string {
  return path.replace(/^\/api\//, '').split('/')[0];
}
