/**
 * The roles a panel user has, and the sets of them the route table grants routes to. Here rather
 * than in auth/ because the route table (http/), the API's answers and the tests all name them;
 * why these four: docs/roles.md.
 *
 * Every role listed here can be granted through `POST/PATCH /api/admins` the moment it appears,
 * so a role is added with its rank in ROLE_RANK (the compiler asks for it) and the routes that
 * grant it, in the same change.
 */
export const USER_ROLES = ['owner', 'admin', 'reseller', 'viewer'] as const;
export type UserRole = (typeof USER_ROLES)[number];

/**
 * How far each role reaches, higher above lower: nobody grants a role above their own
 * (`mayGrant`). A role added to USER_ROLES does not compile until it has a rank. A reseller
 * changes their own clients (above a viewer) and nothing of the panel's (below an admin).
 */
export const ROLE_RANK: Readonly<Record<UserRole, number>> = { owner: 4, admin: 3, reseller: 2, viewer: 1 };

/** The roles that may grant roles at all (through the owner's routes): a reseller or viewer never does. */
const GRANTERS: readonly UserRole[] = ['owner', 'admin'];

/** Whether a user of role `granter` may give `role` to someone: never above their own, never a reseller or viewer. */
export const mayGrant = (granter: UserRole, role: UserRole): boolean =>
  GRANTERS.includes(granter) && ROLE_RANK[role] <= ROLE_RANK[granter];

/** Every role, resellers included: one's own account (password, sessions, 2FA, API tokens), the API listing. */
export const EVERY_ROLE: readonly UserRole[] = USER_ROLES;

/**
 * The panel's own staff: reading the whole panel (without secrets). Not a reseller: a reseller
 * sees their own clients and nothing of the panel's (nodes, interfaces, settings, system), so a
 * route granted to SIGNED_IN stays closed to resellers until it names them (CLIENT_READERS) and
 * applies their scope (docs/operators.md, "How a route respects the reseller scope").
 */
export const SIGNED_IN: readonly UserRole[] = ['owner', 'admin', 'viewer'];

/** Who runs the tunnels: every change to nodes, interfaces, hosts and clients, and every secret they hold. */
export const MANAGERS: readonly UserRole[] = ['owner', 'admin'];

/**
 * Reading clients and what hangs off them, resellers their own only: a route granted to these
 * must pass the caller's OperatorScope (auth/operator-scope.ts) to every query it makes.
 */
export const CLIENT_READERS: readonly UserRole[] = ['owner', 'admin', 'reseller', 'viewer'];

/** Changing clients, their devices, configs and links, resellers their own only (same rule as CLIENT_READERS). */
export const CLIENT_MANAGERS: readonly UserRole[] = ['owner', 'admin', 'reseller'];

/** The owner alone: what holds every other user's secrets (backup archives: password and token hashes, every key); other operators. */
export const OWNER_ONLY: readonly UserRole[] = ['owner'];
