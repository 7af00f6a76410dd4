/**
 * The roles a panel user has, and the sets of them the route table grants routes to. Here rather
 * than in auth/ because the route table (http/), the API's answers and the tests all name them;
 * why these three: docs/roles.md.
 */
export const USER_ROLES = ['owner', 'admin', 'viewer'] as const;
export type UserRole = (typeof USER_ROLES)[number];

/** Every signed-in user: reading the panel (without secrets), their own session and tokens. */
export const SIGNED_IN: readonly UserRole[] = USER_ROLES;

/** Who runs the tunnels: every change to nodes, interfaces, hosts and clients, and every secret they hold. */
export const MANAGERS: readonly UserRole[] = ['owner', 'admin'];

/** The owner alone: what holds every other user's secrets (backup archives: password and token hashes, every key). */
export const OWNER_ONLY: readonly UserRole[] = ['owner'];
