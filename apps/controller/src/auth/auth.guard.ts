import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { forbidden, unauthorized } from '../http/api-error.js';
import { ROUTE_SPEC, type RouteSpec } from '../http/route.decorator.js';
import { AuthService } from './auth.service.js';
import { READ_ONLY_METHODS } from '#libs/contracts/route-groups.js';
import { SESSION_COOKIE, type AuthenticatedRequest, type TokenScope } from './principal.js';
import { assertCookieRequestFromPanel } from './request-site.js';
import type { WarrenConfig } from '../config/config.js';
import { WARREN_CONFIG } from '../runtime.js';

/**
 * Every route needs credentials unless its route-table entry says `public: true`, and then a
 * role its entry lists. A handler with no entry at all is treated as private and open to no
 * role: forgetting the declaration fails closed. API tokens act with their user's role, narrowed
 * by their scope (read-only, route groups); an expired token is unknown (401). A user with a
 * temporary password still to change reaches only the routes marked `beforePasswordChange`. Routes
 * that change how one signs in (`sessionOnly`) refuse API tokens.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    @Inject(Reflector) private readonly reflector: Reflector,
    private readonly auth: AuthService,
    @Inject(WARREN_CONFIG) private readonly config: WarrenConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const spec = this.reflector.get<RouteSpec | undefined>(ROUTE_SPEC, context.getHandler());
    if (spec?.public) return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const bearer = bearerToken(request.headers.authorization);
    const credential = bearer ?? request.cookies?.[SESSION_COOKIE];
    if (!credential) throw unauthorized('authentication required');
    const principal = await this.auth.authenticate(credential);
    if (!principal) throw unauthorized('invalid or expired credentials');
    if (!bearer) assertCookieRequestFromPanel(request, this.config.publicUrl);
    if (!spec?.roles.includes(principal.role)) throw forbidden(`the ${principal.role} role may not call this route`);
    if (spec.sessionOnly && principal.via !== 'session')
      throw forbidden('only a signed-in session may change how one signs in (password, two-factor, sessions)');
    if (principal.mustChangePassword && !spec.beforePasswordChange)
      throw forbidden(
        'change the temporary password first: POST /api/auth/password {"currentPassword", "newPassword"}',
        'mustChangePassword',
      );
    if (principal.scope) assertWithinScope(principal.scope, spec, request.method);
    request.principal = principal;
    return true;
  }
}

/** A scoped token reaches less than its user's role: only safe methods when read-only, only its route groups. */
function assertWithinScope(scope: TokenScope, spec: RouteSpec, method: string): void {
  if (scope.readOnly && !READ_ONLY_METHODS.includes(method))
    throw forbidden('this API token is read-only: it may only call GET routes');
  if (scope.routeGroups && !scope.routeGroups.includes(spec.group))
    throw forbidden(`this API token may not call routes of the ${spec.group} group`);
}

function bearerToken(header: string | undefined): string | undefined {
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1];
}
