import { applyDecorators, Delete, Get, HttpCode, Patch, Post, Put, SetMetadata, type Type } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import {
  ApiBearerAuth,
  ApiBody,
  ApiConsumes,
  ApiExtension,
  ApiExtraModels,
  ApiOperation,
  ApiParam,
  ApiResponse,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import type { RouteGroup } from '#libs/contracts/route-groups.js';
import type { UserRole } from '#libs/contracts/user-roles.js';
import { ApiErrorDto } from './api-error.dto.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Error statuses a route may answer besides the ones every route of its kind can (see errorStatuses). */
export type ExtraErrorStatus = 401 | 403 | 404 | 408 | 409 | 429 | 503 | 507;

/** What a handler declares beside its route; the docs, OpenAPI and the API page all read it. */
interface RouteDeclaration {
  method: HttpMethod;
  /** Relative to `<base path>/api/`, with `:name` parameters, e.g. `tokens/:id`. */
  path: string;
  /** One of libs/contracts/route-groups.ts: what a token limited to groups is checked against. */
  group: RouteGroup;
  summary: string;
  /** An example JSON body for routes that take one (its schema is the handler's `@Body()` DTO). */
  example?: unknown;
  /** Query parameters worth knowing, with a short description each. */
  query?: Record<string, string>;
  /** Success status; defaults to 201 for POST that creates (`created: true`), else 200. */
  status?: number;
  /**
   * The success body: a response DTO class, or `[Class]` for an array of them; or `{ text }`, a
   * body that is text of that media type and never JSON (Prometheus' exposition format).
   */
  response: Type | [Type] | { text: string };
  /** Other media types the success status may carry instead of JSON (e.g. `application/zip`). */
  files?: string[];
  /** Other statuses answering with the success body (health's 503). */
  alsoAnswers?: number[];
  /** Long work: `202` with this body when the work goes on past the request (a job to follow). */
  accepted?: Type;
  /** A raw body of these media types instead of JSON (an upload), read by the handler as a stream. */
  uploads?: string[];
  /** Refusals beyond the ones every route of its kind can give; each answers `{error, field}`. */
  errors?: ExtraErrorStatus[];
  /**
   * Open to a user who still has to change a temporary password (the owner set it): only the
   * routes that change the password, say who is signed in, or sign out. Every other route answers
   * them 403 (field `mustChangePassword`) until the password is changed (docs/operators.md).
   */
  beforePasswordChange?: true;
  /**
   * Changes how someone signs in (password, two-factor, sessions): only a signed-in session may
   * call it. An API token, even the owner's with the `auth` group, answers 403: a leaked token must
   * not become a way to take the account over (docs/roles.md, "Tokens").
   */
  sessionOnly?: true;
  /**
   * What the audit log records of a call (docs/audit.md). Every route but a GET is recorded
   * without saying anything here: the action and target are derived from the method and path.
   * Name them here when the path says them badly; `false` only for a route that changes nothing.
   */
  audit?: RouteAudit | false;
}

/** A route's audit declaration (see RouteDeclaration.audit). */
export interface RouteAudit {
  /** The action's name, e.g. `auth.password`; else derived (`clients.create`, `clients.update`, `clients.reset`). */
  action?: string;
  /** The kind of thing changed, e.g. `users`; else the path's resource (`clients`). */
  target?: string;
  /** `false`: record none of the body's fields (a sign-in records who tried, not what they typed). */
  fields?: false;
  /** The target is the caller's own user (`auth/me`, sign-in, sign-out): its id is recorded as the target's. */
  self?: true;
  /**
   * Every write of the handler goes through MikroORM transactions (`em.transactional`), the first
   * of which makes the change: the entry is then written once, inside that transaction, instead
   * of pending before the handler and settled after it (docs/audit.md, "One write").
   */
  inChangeTransaction?: true;
  /**
   * The route's change is of no use until its answer is read (a sign-in's session token): the
   * entry is written once, before the answer is sent, and a failure to write it fails the request
   * (docs/audit.md, "One write"). A refusal marked `unrecorded` writes nothing.
   */
  beforeAnswer?: true;
}

/**
 * Who may call the route: anyone (`public: true`, no credentials needed), or signed-in users of
 * the listed roles (libs/contracts/user-roles.ts). A private route without `roles` does not
 * compile, so no route is left open to every role by forgetting; the AuthGuard enforces the list.
 */
type RouteAccess = { public: true; roles?: undefined } | { public?: false; roles: readonly UserRole[] };

export type RouteSpec = RouteDeclaration & RouteAccess;

export const ROUTE_SPEC = Symbol('warren:route');

/** The name of the bearer security scheme in the OpenAPI document. */
export const BEARER_SCHEME = 'bearer';

const METHOD_DECORATORS = { GET: Get, POST: Post, PUT: Put, PATCH: Patch, DELETE: Delete } as const;

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'invalid input: bad JSON, an unknown field or a failed rule (`field` names it)',
  401: 'no valid credentials (or, signing in, a wrong username or password)',
  403: "not allowed: the caller's role is not granted the route, a temporary password is still to be changed, the API token's scope does not reach it (read-only, route groups), or a session cookie came from another site",
  404: 'no such resource (or an id that cannot be one)',
  408: 'the request body stopped arriving (nothing was kept)',
  409: 'conflicts with the current state',
  413: 'body larger than 1 MiB',
  415: 'body is not JSON',
  429: 'too many attempts; see Retry-After',
  500: 'internal error (no detail)',
  503: 'a store the route depends on (the database, the queue store) cannot be reached now; see Retry-After',
  507: 'the disk the route writes to is full (nothing was kept)',
};

/**
 * Every route can refuse malformed input (400, a bad URL or JSON body), fail (500) and meet the
 * database away (503, http/error-response.ts: PostgreSQL restarting or down); private
 * routes refuse missing credentials, and a role they are not granted, a user whose temporary
 * password is still to change, a session cookie sent by another site with an unsafe method or
 * an API token whose scope does not reach them (403); `:id` routes name nothing for an unknown id;
 * routes whose method carries a body refuse big and non-JSON ones.
 */
export function errorStatuses(spec: RouteSpec): number[] {
  const statuses = new Set<number>([400, 500, 503, ...(spec.errors ?? [])]);
  if (!spec.public) statuses.add(401);
  // Every private route: a role it does not list, a temporary password still to change, a cookie
  // from another site, or an API token whose scope (read-only, route groups) does not reach it.
  if (!spec.public) statuses.add(403);
  if (spec.path.includes(':')) statuses.add(404);
  if (spec.method !== 'GET') statuses.add(413).add(415);
  // A status answered with the success body (readiness' 503) is declared as that alone.
  for (const status of spec.alsoAnswers ?? []) statuses.delete(status);
  return [...statuses].sort((a, b) => a - b);
}

/**
 * The `@Body()` DTO of the handler being decorated. Parameter decorators and design metadata run
 * before method decorators, so they are there to read when this one runs.
 */
function bodyType(target: object, key: string | symbol): Type | undefined {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, target.constructor, key) ?? {}) as Record<
    string,
    { index: number }
  >;
  const types = (Reflect.getMetadata('design:paramtypes', target, key) ?? []) as Type[];
  const entry = Object.entries(args).find(([name]) => name.split(':')[0] === String(RouteParamtypes.BODY));
  return entry ? types[entry[1].index] : undefined;
}

function example(spec: RouteSpec): MethodDecorator {
  return (target, key, descriptor) => {
    if (spec.example === undefined) return;
    const type = bodyType(target, key);
    if (!type) throw new Error(`${spec.method} ${spec.path} has an example body but no @Body() DTO`);
    ApiBody({ type, required: true, examples: { example: { summary: 'example', value: spec.example } } })(
      target,
      key,
      descriptor,
    );
  };
}

function success(spec: RouteSpec, status: number): MethodDecorator {
  if ('text' in spec.response) {
    const content = { [spec.response.text]: { schema: { type: 'string' } } };
    return ApiResponse({ status, description: 'success', content });
  }
  const [type, isArray] = Array.isArray(spec.response) ? [spec.response[0], true] : [spec.response, false];
  const description = status === 204 ? 'no content' : 'success';
  const decorators: MethodDecorator[] = [
    ...[status, ...(spec.alsoAnswers ?? [])].map((code) => ApiResponse({ status: code, description, type, isArray })),
  ];
  if (spec.accepted)
    decorators.push(
      ApiResponse({ status: 202, description: 'accepted: the work goes on; follow the job', type: spec.accepted }),
    );
  if (spec.uploads?.length) {
    decorators.push(
      ApiConsumes(...spec.uploads),
      ApiBody({ required: true, schema: { type: 'string', format: 'binary' } }),
    );
  }
  if (spec.files?.length) {
    const json = isArray ? { type: 'array', items: { $ref: getSchemaPath(type) } } : { $ref: getSchemaPath(type) };
    const content = Object.fromEntries([
      ['application/json', { schema: json }],
      ...spec.files.map((mediaType) => [mediaType, { schema: { type: 'string', format: 'binary' } }]),
    ]);
    decorators.splice(0, 1, ApiExtraModels(type), ApiResponse({ status, description, content }));
  }
  return applyDecorators(...decorators);
}

/**
 * Registers a handler, its route-table entry and its OpenAPI operation in one place, so the
 * three cannot drift apart.
 */
export function Route(spec: RouteSpec): MethodDecorator {
  const status = spec.status ?? 200;
  return applyDecorators(
    SetMetadata(ROUTE_SPEC, spec),
    METHOD_DECORATORS[spec.method](spec.path),
    HttpCode(status),
    ApiTags(spec.group),
    ApiOperation({
      summary: spec.summary,
      operationId: operationId(spec),
      description: rolesDescription(spec),
      // Public: an empty list says "no credentials" (absent would leave it unsaid).
      ...(spec.public ? { security: [] } : {}),
    }),
    ...(spec.public ? [] : [ApiBearerAuth(BEARER_SCHEME)]),
    // Machine-readable for generated clients and the authorization-matrix suite; [] = public.
    ApiExtension('x-roles', spec.public ? [] : [...spec.roles]),
    ...(spec.sessionOnly ? [ApiExtension('x-session-only', true)] : []),
    // A POST that changes nothing (a parser, a key generator) says so: readers of the table skip its audit entry.
    ...(spec.audit === false ? [ApiExtension('x-changes-nothing', true)] : []),
    ...pathIds(spec),
    example(spec),
    success(spec, status),
    ...errorStatuses(spec).map((code) =>
      ApiResponse({ status: code, description: ERROR_DESCRIPTIONS[code], type: ApiErrorDto }),
    ),
  );
}

function rolesDescription(spec: RouteSpec): string {
  if (spec.public) return 'Public: no credentials needed.';
  return `Roles: ${spec.roles.join(', ')}.${spec.sessionOnly ? ' A signed-in session only: API tokens answer 403.' : ''}`;
}

/** Every `:id` in a path is a resource id, which IdPipe checks: a uuid, said so in the schema. */
function pathIds(spec: RouteSpec): MethodDecorator[] {
  return [...spec.path.matchAll(/:([A-Za-z0-9_]+)/g)]
    .filter(([, name]) => name === 'id')
    .map(([, name]) => ApiParam({ name, required: true, schema: { type: 'string', format: 'uuid' } }));
}

/** Stable names for generated clients: `get_clients_id`, `post_auth_login`. */
function operationId(spec: RouteSpec): string {
  return `${spec.method.toLowerCase()}_${spec.path.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_|_$/g, '')}`;
}
