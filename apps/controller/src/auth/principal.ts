import type { FastifyRequest } from 'fastify';
import type { RouteGroup } from '#libs/contracts/route-groups.js';
import type { UserRole } from '#libs/contracts/user-roles.js';

/** Who is making a request, and with which credential. */
export interface Principal {
  userId: string;
  username: string;
  role: UserRole;
  via: 'session' | 'token';
  /** The session or API token id. */
  credentialId: string;
  /** The user still signs in with a temporary password the owner set (docs/operators.md). */
  mustChangePassword: boolean;
  /** An API token's narrowing of its user's role (docs/roles.md, "Scoped tokens"); none for sessions. */
  scope?: TokenScope;
}

/** What an API token may do beyond its user's role: never more, only less. */
export interface TokenScope {
  /** Only GET and HEAD. */
  readOnly: boolean;
  /** Only routes of these groups; null: every group. */
  routeGroups: readonly RouteGroup[] | null;
  expiresAt: Date | null;
}

export type AuthenticatedRequest = FastifyRequest & { principal?: Principal };

export const SESSION_COOKIE = 'warren_session';
