import { Alert } from '@mantine/core';
import { useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import type { WebPage } from '../../../libs/contracts/web-paths.js';
import { ApiError, type Schemas } from './api.js';
import { PageHeader } from './components/common.js';

type Role = Schemas['UserDto']['role'];

const EVERYONE: readonly Role[] = ['owner', 'admin', 'reseller', 'viewer'];
/** The panel's staff: what the API's SIGNED_IN grants (docs/roles.md); not resellers. */
const STAFF: readonly Role[] = ['owner', 'admin', 'viewer'];
const MANAGERS: readonly Role[] = ['owner', 'admin'];
const OWNER: readonly Role[] = ['owner'];

/**
 * Who may use each page, and what the others read instead: the roles the API grants the page's
 * own reads (docs/roles.md). A page outside a role's reach shows the refusal, never a page of
 * loading rows over 403s nor buttons for changes the API would refuse.
 */
export const PAGE_ACCESS: Record<WebPage, { roles: readonly Role[]; refusal: string }> = {
  overview: { roles: EVERYONE, refusal: 'access.refused' },
  clients: { roles: EVERYONE, refusal: 'access.refused' },
  'api-docs': { roles: EVERYONE, refusal: 'access.refused' },
  account: { roles: EVERYONE, refusal: 'access.refused' },
  groups: { roles: STAFF, refusal: 'access.staffOnly' },
  interfaces: { roles: STAFF, refusal: 'access.staffOnly' },
  hosts: { roles: STAFF, refusal: 'access.staffOnly' },
  outbounds: { roles: STAFF, refusal: 'access.staffOnly' },
  routing: { roles: STAFF, refusal: 'access.staffOnly' },
  template: { roles: STAFF, refusal: 'access.staffOnly' },
  nodes: { roles: STAFF, refusal: 'access.staffOnly' },
  system: { roles: STAFF, refusal: 'access.staffOnly' },
  settings: { roles: STAFF, refusal: 'access.staffOnly' },
  notifications: { roles: MANAGERS, refusal: 'access.managersOnly' },
  backups: { roles: MANAGERS, refusal: 'backups.managersOnly' },
  audit: { roles: OWNER, refusal: 'audit.ownerOnly' },
  operators: { roles: OWNER, refusal: 'operators.ownerOnly' },
};

export function mayUse(page: WebPage, role: Role): boolean {
  return PAGE_ACCESS[page].roles.includes(role);
}

const NAV_KEY: Partial<Record<WebPage, string>> = { 'api-docs': 'nav.api', account: 'header.account' };

/** What a role that may not use a page reads there: the page's title and who the page is for. */
export function RoleRefusal({ page, message }: { page: WebPage; message?: string }) {
  const { t } = useTranslation();
  return (
    <>
      <PageHeader title={t(NAV_KEY[page] ?? `nav.${page}`)} />
      <Alert color="gray" data-testid="role-refusal">
        {t(message ?? PAGE_ACCESS[page].refusal)}
      </Alert>
    </>
  );
}

/*
 * The fallback when the role table above and the API disagree: a query the guard refuses for the
 * role (403 with no field; docs/roles.md) marks the page refused, and the page slot shows the
 * refusal instead of rows loading for ever. A 403 naming a field is a rule about that request
 * (a temporary password, a token's scope), not the role, and stays the page's to show.
 */
let refusedAt = 0;
const watchers = new Set<() => void>();

/** Called for every failed query (app.tsx's QueryCache). */
export function noteRefusal(error: unknown): void {
  if (!(error instanceof ApiError) || error.status !== 403 || error.field) return;
  refusedAt += 1;
  for (const watcher of watchers) watcher();
}

/** How many role refusals so far: a page slot compares it with the count when it opened. */
export function useRefusals(): number {
  return useSyncExternalStore(
    (watcher) => {
      watchers.add(watcher);
      return () => watchers.delete(watcher);
    },
    () => refusedAt,
  );
}
