import { Badge, DirectionProvider, MantineProvider, createTheme, useDirection } from '@mantine/core';
import { QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useEffect } from 'react';
import { WEB_PAGES } from '../../../libs/contracts/web-paths.js';
import { useTranslation } from 'react-i18next';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router';
import { ApiError } from './api.js';
import { basePath } from './env.js';
import { directionOf } from './i18n.js';
import { Layout } from './layout.js';
import { noteRefusal } from './page-access.js';
import { Toasts } from './components/toasts.js';
import { PageSlot } from './pages.js';
import { readableColors } from './readable-colors.js';
import { SessionGate } from './session.js';
import { SignInPage } from './pages/sign-in.js';

const theme = createTheme({
  primaryColor: 'teal',
  defaultRadius: 'md',
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Tahoma, sans-serif',
  components: {
    // A badge shows a tag or name as written ("MyHop", not "MYHOP") and never breaks or cuts it.
    Badge: Badge.extend({
      styles: {
        root: { textTransform: 'none', flexShrink: 0, maxWidth: 'none', overflow: 'visible' },
        label: { overflow: 'visible', textOverflow: 'clip', whiteSpace: 'nowrap' },
      },
    }),
  },
});

const queryClient = new QueryClient({
  // A read the API refuses for the role turns the page into its refusal (page-access.tsx).
  queryCache: new QueryCache({ onError: noteRefusal }),
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
      <MantineProvider theme={theme} defaultColorScheme="auto" cssVariablesResolver={readableColors}>
        <DirectionSync />
        <QueryClientProvider client={queryClient}>
          <BrowserRouter basename={basePath || '/'}>
            <Toasts />
            <Routes>
              <Route path="/sign-in" element={<SignInPage />} />
              <Route
                element={
                  <SessionGate>
                    <Layout />
                  </SessionGate>
                }
              >
                <Route index element={<Navigate to="/overview" replace />} />
                {WEB_PAGES.map((name) => (
                  <Route key={name} path={`/${name}`} element={<PageSlot key={name} name={name} />} />
                ))}
                <Route path="/clients/:id" element={<PageSlot key="clients" name="clients" />} />
                <Route path="*" element={<Navigate to="/overview" replace />} />
              </Route>
            </Routes>
          </BrowserRouter>
        </QueryClientProvider>
      </MantineProvider>
    </DirectionProvider>
  );
}
