import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { unauthorized } from '../http/api-error.js';
import { ROUTE_SPEC, type RouteSpec } from '../http/route.decorator.js';
import { AuthService } from './auth.service.js';
import { SESSION_COOKIE, type AuthenticatedRequest } from './principal.js';

/**
 * Every route needs credentials unless its route-table entry says `public: true`. A handler
 * with no entry at all is treated as private: forgetting the declaration fails closed.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    @Inject(Reflector) private readonly reflector: Reflector,
    private readonly auth: AuthService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const spec = this.reflector.get<RouteSpec | undefined>(ROUTE_SPEC, context.getHandler());
    if (spec?.public) return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const credential = bearerToken(request.headers.authorization) ?? request.cookies?.[SESSION_COOKIE];
    if (!credential) throw unauthorized('authentication required');
    const principal = await this.auth.authenticate(credential);
    if (!principal) throw unauthorized('invalid or expired credentials');
    request.principal = principal;
    return true;
  }
}

function bearerToken(header: string | undefined): string | undefined {
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1];
}
