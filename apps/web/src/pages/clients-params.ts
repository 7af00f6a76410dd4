import { useCallback } from 'react';
import { useLocation, useNavigate, useSearchParams } from 'react-router';
import type { ClientListQuery } from '../api/queries.js';

export const STATUSES = ['active', 'disabled', 'expired', 'exhausted'] as const;
export const SORTS = ['newest', 'oldest', 'name', 'traffic', 'remaining', 'expiry'] as const;
export const PAGE_SIZES = [25, 50, 100] as const;

export type Sort = (typeof SORTS)[number];
export type Status = (typeof STATUSES)[number];

/** What the clients list shows, as the address says it (`?page=3&perPage=50&status=active...`). */
export interface ClientListView {
  page: number;
  perPage: number;
  search: string;
  status: Status | null;
  group: string;
  sort: Sort;
}

const DEFAULTS: ClientListView = { page: 1, perPage: 25, search: '', status: null, group: '', sort: 'newest' };

function oneOf<T>(values: readonly T[], value: unknown): T | undefined {
  return values.find((known) => String(known) === value);
}

/** The view in an address; anything unknown or out of range reads as the default. */
export function parseView(params: URLSearchParams): ClientListView {
  const page = Number(params.get('page'));
  return {
    page: Number.isInteger(page) && page >= 1 && page <= 1_000_000_000 ? page : 1,
    perPage: oneOf(PAGE_SIZES, params.get('perPage')) ?? DEFAULTS.perPage,
    search: (params.get('search') ?? '').slice(0, 128),
    status: oneOf(STATUSES, params.get('status')) ?? null,
    group: (params.get('group') ?? '').slice(0, 64),
    sort: oneOf(SORTS, params.get('sort')) ?? DEFAULTS.sort,
  };
}

/** The API's query for a view's filters and order (its page is asked by number or by cursor apart). */
export function filtersOf(view: ClientListView): ClientListQuery {
  return {
    perPage: view.perPage,
    ...(view.sort !== 'newest' ? { sort: view.sort } : {}),
    ...(view.search ? { search: view.search } : {}),
    ...(view.status ? { status: view.status } : {}),
    ...(view.group ? { group: view.group } : {}),
  };
}

/**
 * The clients list's view kept in the address, so a reload or Back shows the same page, filters
 * and order. Changing a filter, the order or the page size goes back to page 1. Each change is a
 * history entry, except refining a search or group already typed (`replace`), so Back does not
 * step through every letter.
 */
export function useClientListView(): [ClientListView, (changes: Partial<ClientListView>, replace?: boolean) => void] {
  const [params] = useSearchParams();
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const view = parseView(params);
  // The path as it is now: a change typed just before a client was opened (the search field commits
  // 150 ms after the last key) keeps the open drawer's /clients/{id} instead of going back to /clients.
  const update = useCallback(
    (changes: Partial<ClientListView>, replace = false) => {
      const next = new URLSearchParams(params);
      for (const [key, value] of Object.entries(changes) as [keyof ClientListView, unknown][]) {
        if (value === null || value === '' || value === DEFAULTS[key]) next.delete(key);
        else next.set(key, String(value));
      }
      if (!('page' in changes)) next.delete('page');
      const search = next.toString();
      void navigate({ pathname, search: search ? `?${search}` : '' }, { replace });
    },
    [params, pathname, navigate],
  );
  return [view, update];
}
