/**
 * The roles a panel user has, and the sets of them the route table grants routes to. Here rather
 * than in auth/ because the route table (http/), the API's answers and the tests all name them;
 * why these three: docs/roles.md.
 *
 * A fourth, `reseller`, comes with client ownership and ceilings (docs/operators.md): it is left
 * out until then on purpose, since every role listed here can be granted through
 * `POST/PATCH /api/admins` the moment it appears. Adding it takes an entry here, its rank in
 * ROLE_RANK (the compiler asks for it) and the routes that grant it.
 */
export const USER_ROLES = ['owner', 'admin', 'viewer'] as const;
export type UserRole = (typeof USER_ROLES)[number];

/**
 * How far each role reaches, higher above lower: nobody grants a role above their own
 * (`mayGrant`). A role added to USER_ROLES does not compile until it has a rank.
 */
export const ROLE_RANK: Readonly<Record<UserRole, number>> = { owner: 3, admin: 2, viewer: 1 };

/** Whether a user of role `granter` may give `role` to someone: never above their own. */
export const mayGrant = (granter: UserRole, role: UserRole): boolean => ROLE_RANK[role] <= ROLE_RANK[granter];

/** Every signed-in user: reading the panel (without secrets), their own session and tokens. */
export const SIGNED_IN: readonly UserRole[] = USER_ROLES;

/** Who runs the tunnels: every change to nodes, interfaces, hosts and clients, and every secret they hold. */
export const MANAGERS: readonly UserRole[] = ['owner', 'admin'];

/** The owner alone: what holds every other user's secrets (backup archives: password and token hashes, every key); other operators. */
export const OWNER_ONLY: readonly UserRole[] = ['owner'];
