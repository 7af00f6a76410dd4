import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { unauthorized } from '../http/api-error.js';
import type { AuthenticatedRequest, Principal } from './principal.js';

/**
 * Which clients a request may see and touch (docs/operators.md, "How a route respects the
 * reseller scope"). A reseller's scope is their own clients; everyone else's is every client.
 * Every route that reads or changes clients, devices or what hangs off them takes it with
 * `@CallerScope()` and passes it to the service, and the repositories put `ownerId` into their
 * SQL (`c.owner_id = …`): a client or device outside the scope is then exactly as absent as one
 * that does not exist (404, the same message), and no list, count or total includes it.
 */
export interface OperatorScope {
  /** The user acting: the clients they create are theirs. */
  readonly userId: string;
  /** Only clients owned by this user (a reseller's own id); null: every client. */
  readonly ownerId: string | null;
  /** Whether the ceilings the owner set apply to the caller's creates and changes (resellers). */
  readonly ceilings: boolean;
}

/** The scope of a signed-in caller: a reseller reaches their own clients, other roles every client. */
export function scopeOf(principal: Pick<Principal, 'userId' | 'role'>): OperatorScope {
  const reseller = principal.role === 'reseller';
  return { userId: principal.userId, ownerId: reseller ? principal.userId : null, ceilings: reseller };
}

/** The caller's OperatorScope, from the principal the AuthGuard established. */
export const CallerScope = createParamDecorator((_: unknown, context: ExecutionContext): OperatorScope => {
  const principal = context.switchToHttp().getRequest<AuthenticatedRequest>().principal;
  if (!principal) throw unauthorized();
  return scopeOf(principal);
});

/** The part of a scope a query needs: whose clients it may reach. */
export type OwnerFilter = Pick<OperatorScope, 'ownerId'>;

/**
 * Every client: for work the panel does on its own account, never for a signed-in caller (a
 * public page reached by its secret token, a scheduled job). A route passes `@CallerScope()`.
 */
export const ALL_CLIENTS: OwnerFilter = { ownerId: null };
