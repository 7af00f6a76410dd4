/**
 * The route table's groups: each `@Route` names one (its OpenAPI tag and its section of
 * GET /api/docs). An API token may be limited to some of them (docs/roles.md, "Scoped tokens"),
 * so the list is here, where the route table, the token API, the web panel and the tests read it.
 * A route group not in this list does not compile.
 */
export const ROUTE_GROUPS = [
  'admins',
  'agents',
  'audit',
  'auth',
  'backups',
  'clients',
  'devices',
  'docs',
  'groups',
  'hosts',
  'interfaces',
  'nodes',
  'outbounds',
  'overview',
  'routing',
  'settings',
  'subscriptions',
  'system',
  'template',
  'tokens',
] as const;
export type RouteGroup = (typeof ROUTE_GROUPS)[number];

/** Methods a read-only token may use: they change nothing. */
export const READ_ONLY_METHODS: readonly string[] = ['GET', 'HEAD'];
