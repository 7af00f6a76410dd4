import { applyDecorators, Delete, Get, HttpCode, Patch, Post, Put, SetMetadata } from '@nestjs/common';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What a handler declares beside its route; the docs, OpenAPI and the API page all read it. */
export interface RouteSpec {
  method: HttpMethod;
  /** Relative to `<base path>/api/`, with `:name` parameters, e.g. `tokens/:id`. */
  path: string;
  group: string;
  summary: string;
  /** An example JSON body for routes that take one. */
  example?: unknown;
  /** Query parameters worth knowing, with a short description each. */
  query?: Record<string, string>;
  /** Public routes answer without credentials; every other route requires them. */
  public?: boolean;
  /** Success status; defaults to 201 for POST that creates (`created: true`), else 200. */
  status?: number;
}

export const ROUTE_SPEC = Symbol('warren:route');

const METHOD_DECORATORS = { GET: Get, POST: Post, PUT: Put, PATCH: Patch, DELETE: Delete } as const;

/** Registers a handler and its route-table entry in one place, so the two cannot drift apart. */
export function Route(spec: RouteSpec): MethodDecorator {
  return applyDecorators(
    SetMetadata(ROUTE_SPEC, spec),
    METHOD_DECORATORS[spec.method](spec.path),
    HttpCode(spec.status ?? 200),
  );
}
