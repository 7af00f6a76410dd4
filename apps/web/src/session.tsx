import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, useContext, useEffect, type ReactNode } from 'react';
import { Navigate, useLocation, useNavigate } from 'react-router';
import { api, ApiError, must, onConnection, type Schemas } from './api.js';
import { PageLoader } from './components/page-loader.js';
import { PasswordRequired } from './components/password-required.js';

type User = Schemas['UserDto'];
const SessionContext = createContext<User | null>(null);

/** The signed-in user (inside the SessionGate). */
export function useUser(): User {
  const user = useContext(SessionContext);
  if (!user) throw new Error('useUser outside the session');
  return user;
}

/**
 * Whether the signed-in role may change things (owner, admin; a reseller their own clients, the
 * only pages they see): viewers get read-only pages.
 */
export function useCanManage(): boolean {
  const role = useUser().role;
  return role === 'owner' || role === 'admin' || role === 'reseller';
}

/** A reseller sees their own clients and the room left under their ceilings, nothing of the panel's. */
export function useIsReseller(): boolean {
  return useUser().role === 'reseller';
}

export const ME_KEY = ['auth', 'me'];

/** Where sign-in sends back to: the page the person was on. */
export function signInPath(location: { pathname: string; search: string }): string {
  const next = `${location.pathname}${location.search}`;
  return next && next !== '/' && !next.startsWith('/sign-in')
    ? `/sign-in?next=${encodeURIComponent(next)}`
    : '/sign-in';
}

/**
 * Shows its children only with a live session (GET /api/auth/me); without one, or when any call
 * answers 401 later (the session expired or was ended elsewhere), it goes to sign-in, which comes
 * back here afterwards. A user still on a temporary password sees only the form to change it.
 */
export function SessionGate({ children }: { children: ReactNode }) {
  const location = useLocation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const me = useQuery({ queryKey: ME_KEY, queryFn: () => must(api.GET('/api/auth/me')), staleTime: 60_000 });

  useEffect(
    () =>
      onConnection((event) => {
        if (event !== 'expired') return;
        queryClient.clear();
        void navigate(signInPath(locationInApp()), { replace: true });
      }),
    [navigate, queryClient, location],
  );

  if (me.error instanceof ApiError && me.error.status === 401) return <Navigate to={signInPath(location)} replace />;
  if (!me.data) return <PageLoader />;
  // A temporary password the owner set: the API refuses everything else until it is changed.
  if (me.data.mustChangePassword) return <PasswordRequired user={me.data.user} />;
  return <SessionContext.Provider value={me.data.user}>{children}</SessionContext.Provider>;
}

/** The current location inside the app (without the base path). */
function locationInApp(): { pathname: string; search: string } {
  const base = new URL(document.baseURI).pathname.replace(/\/+$/, '');
  return { pathname: window.location.pathname.slice(base.length) || '/', search: window.location.search };
}
