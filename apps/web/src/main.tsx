import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import './i18n.js';
import { createRoot } from 'react-dom/client';
import { App } from './app.js';
import { basePath } from './env.js';
import { pageOf, preloadPage } from './pages.js';

// The page in the address loads beside the session check instead of after it.
const page = pageOf(window.location.pathname.slice(basePath.length));
if (page) void preloadPage(page).catch(() => undefined);

createRoot(document.getElementById('root')!).render(<App />);
