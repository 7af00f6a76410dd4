import {
  Inject,
  Injectable,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
  type Type,
} from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import type { Observable } from 'rxjs';
import { badRequest } from './api-error.js';
import { readFailure } from './field-failures.js';
import { ROUTE_SPEC, type RouteSpec } from './route.decorator.js';

/** Which inputs a handler declares: a `@Body()` and a `@Query()` parameter. */
interface Declared {
  body: boolean;
  query: boolean;
}

function declaredInputs(controller: Type, handler: string | symbol): Declared {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, handler) ?? {}) as Record<string, unknown>;
  const kinds = new Set(Object.keys(args).map((name) => name.split(':')[0]));
  return { body: kinds.has(String(RouteParamtypes.BODY)), query: kinds.has(String(RouteParamtypes.QUERY)) };
}

/**
 * A change (POST, PUT, PATCH, DELETE) whose handler declares no body or no query DTO refuses one
 * given anyway, naming its first field, as the DTOs refuse unknown fields: the handler would never
 * read it, so `DELETE /api/clients/{id}?dryRun=true` deleted the client and
 * `POST /api/backups {"name": …}` made a backup named otherwise, each answering success. An empty
 * body or `{}` is no input. Uploads read their raw body themselves and are left alone.
 */
@Injectable()
export class UndeclaredInputInterceptor implements NestInterceptor {
  private readonly declared = new WeakMap<object, Declared>();

  constructor(@Inject(Reflector) private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const spec = this.reflector.get<RouteSpec | undefined>(ROUTE_SPEC, context.getHandler());
    if (context.getType() !== 'http' || !spec || spec.method === 'GET' || spec.uploads?.length) return next.handle();
    const handler = context.getHandler();
    let declared = this.declared.get(handler);
    if (!declared) this.declared.set(handler, (declared = declaredInputs(context.getClass(), handler.name)));
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (!declared.query) refuseAny(Object.keys((request.query ?? {}) as object));
    if (!declared.body && request.body !== undefined) {
      const body = request.body;
      if (body === null || typeof body !== 'object' || Array.isArray(body))
        throw badRequest('This request takes no body: send none (or {}).');
      refuseAny(Object.keys(body));
    }
    return next.handle();
  }
}

/** 400 naming every key, the first as the contract's `field`, as an unknown DTO field is. */
function refuseAny(keys: string[]): void {
  const [first] = keys;
  if (first === undefined) return;
  const failures = keys.map((key) => readFailure(key, 'whitelistValidation', ''));
  throw badRequest(failures[0].message, first, failures);
}
