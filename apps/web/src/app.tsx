import { DirectionProvider, MantineProvider, createTheme, useDirection } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { lazy, Suspense, useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router';
import { ApiError } from './api.js';
import { PageLoader } from './components/page-loader.js';
import { basePath } from './env.js';
import { directionOf } from './i18n.js';
import { Layout } from './layout.js';
import { SessionGate } from './session.js';
import { SignInPage } from './pages/sign-in.js';

// Every page is its own chunk: the first load carries the shell and sign-in only.
const OverviewPage = lazy(() => import('./pages/overview.js'));
const ClientsPage = lazy(() => import('./pages/clients.js'));
const InterfacesPage = lazy(() => import('./pages/interfaces.js'));
const HostsPage = lazy(() => import('./pages/hosts.js'));
const NodesPage = lazy(() => import('./pages/nodes.js'));
const BackupsPage = lazy(() => import('./pages/backups.js'));
const SystemPage = lazy(() => import('./pages/system.js'));
const SettingsPage = lazy(() => import('./pages/settings.js'));
const ApiPage = lazy(() => import('./pages/api-docs.js'));
const AccountPage = lazy(() => import('./pages/account.js'));

const theme = createTheme({ primaryColor: 'teal', defaultRadius: 'md', fontFamily: 'system-ui, -apple-system, "Segoe UI", Tahoma, sans-serif' });

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A refusal from the API is final; a lost connection is retried (the banner says so).
      retry: (count, error) => !(error instanceof ApiError) && count < 5,
      retryDelay: (count) => Math.min(1000 * 2 ** count, 8000),
      refetchOnWindowFocus: false,
      staleTime: 2000,
    },
    mutations: { retry: false },
  },
});

/** Keeps Mantine's direction in step with the language (Persian is right-to-left). */
function DirectionSync() {
  const { i18n } = useTranslation();
  const { setDirection } = useDirection();
  useEffect(() => setDirection(directionOf(i18n.language)), [i18n.language, setDirection]);
  return null;
}

export function App() {
  const { i18n } = useTranslation();
  return (
    <DirectionProvider initialDirection={directionOf(i18n.language)} detectDirection={false}>
      <MantineProvider theme={theme} defaultColorScheme="auto">
        <DirectionSync />
        <Notifications position="top-center" />
        <QueryClientProvider client={queryClient}>
          <BrowserRouter basename={basePath || '/'}>
            <Routes>
              <Route path="/sign-in" element={<SignInPage />} />
              <Route element={<SessionGate><Layout /></SessionGate>}>
                <Route index element={<Navigate to="/overview" replace />} />
                <Route path="/overview" element={<Page><OverviewPage /></Page>} />
                <Route path="/clients" element={<Page><ClientsPage /></Page>} />
                <Route path="/clients/:id" element={<Page><ClientsPage /></Page>} />
                <Route path="/interfaces" element={<Page><InterfacesPage /></Page>} />
                <Route path="/hosts" element={<Page><HostsPage /></Page>} />
                <Route path="/nodes" element={<Page><NodesPage /></Page>} />
                <Route path="/backups" element={<Page><BackupsPage /></Page>} />
                <Route path="/system" element={<Page><SystemPage /></Page>} />
                <Route path="/settings" element={<Page><SettingsPage /></Page>} />
                <Route path="/api-docs" element={<Page><ApiPage /></Page>} />
                <Route path="/account" element={<Page><AccountPage /></Page>} />
                <Route path="*" element={<Navigate to="/overview" replace />} />
              </Route>
            </Routes>
          </BrowserRouter>
        </QueryClientProvider>
      </MantineProvider>
    </DirectionProvider>
  );
}

function Page({ children }: { children: React.ReactNode }) {
  return <Suspense fallback={<PageLoader />}>{children}</Suspense>;
}
