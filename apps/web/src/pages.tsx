import { useEffect, useState, type ComponentType } from 'react';
import type { WebPage } from '../../../libs/contracts/web-paths.js';
import { PageLoader } from './components/page-loader.js';
import { mayUse, RoleRefusal, useRefusals } from './page-access.js';
import { useUser } from './session.js';

type PageModule = { default: ComponentType };

// Every page is its own chunk: the first load carries the shell and sign-in only. The pages are
// the list the controller serves the app for (deep links, reloads): libs/contracts/web-paths.ts.
const LOADERS: Record<WebPage, () => Promise<PageModule>> = {
  overview: () => import('./pages/overview.js'),
  clients: () => import('./pages/clients.js'),
  groups: () => import('./pages/groups.js'),
  interfaces: () => import('./pages/interfaces.js'),
  hosts: () => import('./pages/hosts.js'),
  outbounds: () => import('./pages/outbounds.js'),
  routing: () => import('./pages/routing.js'),
  template: () => import('./pages/template.js'),
  nodes: () => import('./pages/nodes.js'),
  backups: () => import('./pages/backups.js'),
  audit: () => import('./pages/audit.js'),
  system: () => import('./pages/system.js'),
  settings: () => import('./pages/settings.js'),
  notifications: () => import('./pages/notifications.js'),
  'api-docs': () => import('./pages/api-docs.js'),
  operators: () => import('./pages/operators.js'),
  account: () => import('./pages/account.js'),
};

const loaded = new Map<WebPage, ComponentType>();
const loading = new Map<WebPage, Promise<ComponentType>>();

/** Starts loading a page's chunk (once); main.tsx calls it for the page in the address at start, beside the session check. */
export function preloadPage(name: WebPage): Promise<ComponentType> {
  let pending = loading.get(name);
  if (!pending) {
    pending = LOADERS[name]().then((module) => {
      loaded.set(name, module.default);
      return module.default;
    });
    pending.catch(() => loading.delete(name));
    loading.set(name, pending);
  }
  return pending;
}

/** The page of a path inside the app ("/clients/x" → clients), if it is one. */
export function pageOf(pathname: string): WebPage | undefined {
  const first = pathname.split('/').filter(Boolean)[0];
  return first && first in LOADERS ? (first as WebPage) : undefined;
}

/**
 * A page, rendered as soon as its chunk is there; a page the signed-in role may not use is its
 * refusal instead (page-access.tsx), as is one whose reads the API refuses for the role. Not React.lazy: a Suspense boundary that showed
 * its fallback reveals the page no sooner than 300 ms later (React's fallback throttle), which
 * would be most of the time the clients page takes to show.
 */
export function PageSlot({ name }: { name: WebPage }) {
  const [Page, setPage] = useState<ComponentType | undefined>(() => loaded.get(name));
  const [failed, setFailed] = useState(false);
  const allowed = mayUse(name, useUser().role);
  const refusals = useRefusals();
  const [refusalsBefore] = useState(refusals);
  useEffect(() => {
    if (Page || !allowed) return;
    let live = true;
    preloadPage(name).then(
      (component) => live && setPage(() => component),
      () => live && setFailed(true),
    );
    return () => {
      live = false;
    };
  }, [name, Page, allowed]);
  if (!allowed) return <RoleRefusal page={name} />;
  if (refusals > refusalsBefore) return <RoleRefusal page={name} message="access.refused" />;
  if (failed) throw new Error(`the ${name} page could not be loaded`);
  return Page ? <Page /> : <PageLoader />;
}
