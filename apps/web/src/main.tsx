import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import './i18n.js';
import { createRoot } from 'react-dom/client';
import { App } from './app.js';

createRoot(document.getElementById('root')!).render(<App />);
