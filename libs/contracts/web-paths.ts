/**
 * The web panel's pages, as paths below the base path. The controller answers exactly these (and
 * the built files under `assets/`) with the app, so a deep link or a reload lands on the page;
 * every other path stays the API's JSON 404, and nothing of the app's can shadow an API route.
 * The app's router (apps/web/src/app.tsx) declares its routes from the same list.
 */
export const WEB_PAGES = [
  'overview',
  'clients',
  'groups',
  'interfaces',
  'hosts',
  'outbounds',
  'routing',
  'template',
  'nodes',
  'backups',
  'audit',
  'system',
  'settings',
  'notifications',
  'api-docs',
  'operators',
  'account',
] as const;
export type WebPage = (typeof WEB_PAGES)[number];

/** Every path the app routes, `:param` for a path segment ("" is the base path itself, with its slash). */
export const WEB_PATHS: readonly string[] = ['', 'sign-in', ...WEB_PAGES, 'clients/:id'];
