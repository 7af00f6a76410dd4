import { launchBrowser, type TestBrowser } from './browser.js';
import { OWNER } from './test-panel.js';

/** A phone's screen, as the layout tests use it. */
export const PHONE = { width: 390, height: 844 };

/**
 * A fresh browser signed in as the owner through the real sign-in route (which sets its session
 * cookie), at `viewport`, its language preset as the header's switch keeps it (none: the
 * browser's own, English here).
 */
export async function signedInBrowser(
  panel: { origin: string; basePath: string },
  options: { viewport?: { width: number; height: number }; language?: 'en' | 'fa' } = {},
): Promise<TestBrowser> {
  const browser = await launchBrowser(options.viewport ? { viewport: options.viewport } : {});
  const signedIn = await browser.context.request.post(`${panel.origin}${panel.basePath}/api/auth/login`, {
    data: OWNER,
    headers: { Origin: panel.origin },
  });
  if (signedIn.status() !== 200) {
    await browser.close();
    throw new Error(`signing in answered ${signedIn.status()}`);
  }
  if (options.language)
    await browser.context.addInitScript(`localStorage.setItem('warren.language', '${options.language}')`);
  return browser;
}
