import { Inject, Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { catchError, concatMap, from, switchMap, throwError, type Observable } from 'rxjs';
import type { Principal } from '../auth/principal.js';
import { ROUTE_SPEC, type RouteSpec } from '../http/route.decorator.js';
import { auditedRoute, type AuditedRoute } from './audited-route.js';
import { AuditRecorder } from './audit-recorder.js';

/**
 * Records every call of every route that changes something, driven by the route table alone
 * (audited-route.ts): a new route is recorded the day it is added, with nothing to write. It runs
 * after the AuthGuard (a request refused for its credentials or role writes nothing) and before
 * the pipes and the other interceptors (a request refused for its input writes a `refused` entry).
 */
@Injectable()
export class AuditInterceptor implements NestInterceptor {
  private readonly routes = new WeakMap<object, AuditedRoute | null>();

  constructor(
    @Inject(Reflector) private readonly reflector: Reflector,
    private readonly recorder: AuditRecorder,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const handler = context.getHandler();
    let route = this.routes.get(handler);
    if (route === undefined) {
      const spec = this.reflector.get<RouteSpec | undefined>(ROUTE_SPEC, handler);
      route = spec ? auditedRoute(spec) : null;
      this.routes.set(handler, route);
    }
    if (!route) return next.handle();
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest & { principal?: Principal }>();
    const reply = http.getResponse<FastifyReply>();
    const spec = this.reflector.get<RouteSpec>(ROUTE_SPEC, handler);
    return from(this.recorder.open(route, request)).pipe(
      switchMap((record) =>
        // Inside the record's context: the handler's first commit writes the entry (docs/audit.md).
        record
          .run(() => next.handle())
          .pipe(
            // The status a handler set itself (a 202) wins; else the route's declared one.
            concatMap(async (value) => {
              await record.succeeded(value, reply.statusCode !== 200 ? reply.statusCode : (spec.status ?? 200));
              return value;
            }),
            catchError((error: unknown) => from(record.failed(error)).pipe(switchMap(() => throwError(() => error)))),
          ),
      ),
    );
  }
}
