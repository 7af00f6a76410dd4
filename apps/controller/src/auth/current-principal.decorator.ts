import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { unauthorized } from '../http/api-error.js';
import type { AuthenticatedRequest, Principal } from './principal.js';

/** The caller the AuthGuard established for this request. */
export const CurrentPrincipal = createParamDecorator((_: unknown, context: ExecutionContext): Principal => {
  const principal = context.switchToHttp().getRequest<AuthenticatedRequest>().principal;
  if (!principal) throw unauthorized();
  return principal;
});
