import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import { createRoot } from 'react-dom/client';
import { App } from './app.js';
import { basePath } from './env.js';
import { i18nReady } from './i18n.js';
import { pageOf, preloadPage } from './pages.js';

// The page in the address loads beside the session check instead of after it.
const page = pageOf(window.location.pathname.slice(basePath.length));
if (page) void preloadPage(page).catch(() => undefined);

// Rendered once the language's texts are there (Persian is a chunk of its own).
void i18nReady.then(() => createRoot(document.getElementById('root')!).render(<App />));
