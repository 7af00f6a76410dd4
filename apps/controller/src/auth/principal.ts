import type { FastifyRequest } from 'fastify';
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
}

export type AuthenticatedRequest = FastifyRequest & { principal?: Principal };

export const SESSION_COOKIE = 'warren_session';
