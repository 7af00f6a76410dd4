import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { defaultWebRoot } from '../../apps/controller/src/web/web-app.js';

/** Debian's Chromium (test/prepare-host.sh installs it): no browser download works here. */
export const CHROMIUM = process.env.WARREN_TEST_CHROMIUM ?? '/usr/bin/chromium';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface TestBrowser {
  context: BrowserContext;
  page: Page;
  /** Every request the page made, in order: method and full URL. */
  requests: { method: string; url: string }[];
  /** Errors thrown in the page (uncaught): a test asserts there were none. */
  pageErrors: string[];
  close(): Promise<void>;
}

/** Fails at once, naming the command, when the web panel was not built (its tests need dist/web). */
export function assertWebBuilt(): void {
  if (!existsSync(join(defaultWebRoot(), 'index.html')))
    throw new Error('no web panel build in dist/web: run `npm run build` first');
}

/**
 * A fresh Chromium profile (its own --user-data-dir, removed on close), one page, its requests
 * recorded. `args` adds Chromium flags (a --remote-debugging-port for Lighthouse, say).
 */
export async function launchBrowser(
  options: { viewport?: { width: number; height: number }; args?: string[] } = {},
): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} not found: run test/prepare-host.sh (it installs Debian's chromium)`);
  const profile = mkdtempSync(join(tmpdir(), 'warren-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [...FLAGS, ...(options.args ?? [])],
    viewport: options.viewport ?? { width: 1280, height: 800 },
    acceptDownloads: true,
    locale: 'en-US',
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const requests: TestBrowser['requests'] = [];
  const pageErrors: string[] = [];
  context.on('request', (request) => requests.push({ method: request.method(), url: request.url() }));
  page.on('pageerror', (error) => pageErrors.push(error.message));
  return {
    context,
    page,
    requests,
    pageErrors,
    async close() {
      await context.close().catch(() => undefined);
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Waits until the page shows no spinner (charts and lists settled); a page that keeps one is left as is. */
export async function untilSettled(page: Page): Promise<void> {
  await page
    .locator('.mantine-Loader-root')
    .first()
    .waitFor({ state: 'detached', timeout: 10_000 })
    .catch(() => undefined);
}

/**
 * Closes every toast on the page (their close buttons) and waits until none is left: earlier
 * steps' "Saved" and "Device created" are not what a screenshot of the page is about.
 */
export async function dismissToasts(page: Page): Promise<void> {
  const toasts = page.locator('.mantine-Notification-root');
  for (let left = await toasts.count(); left > 0; left = await toasts.count())
    await toasts
      .first()
      .locator('.mantine-Notification-closeButton')
      .click()
      .catch(() => undefined);
  await toasts.first().waitFor({ state: 'detached' });
}

/**
 * Presses Confirm in the dialog that asks `asks` and waits until that dialog has gone. A dialog
 * closed a moment earlier may still be fading out under load, so "the dialog" alone can match two.
 */
export async function confirmDialog(page: Page, asks: string): Promise<void> {
  const dialog = page.getByRole('dialog').filter({ hasText: asks });
  await dialog.getByTestId('confirm').click();
  await dialog.waitFor({ state: 'detached' });
}

/** Opens one of the panel's pages at `url` and waits for its title and for it to settle. */
export async function openSettled(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.locator('main h2').waitFor();
  await untilSettled(page);
}

/** A phone's screen, for the layout checks at 390 px. */
export const PHONE = { width: 390, height: 844 };

/**
 * A fresh browser signed in as `user` (the sign-in route sets its session cookie), in `language`
 * when given (the panel's stored choice); `url` makes an address of the panel under its base path.
 */
export async function signedInBrowser(
  url: (path: string) => string,
  user: { username: string; password: string },
  options: { viewport?: { width: number; height: number }; language?: 'en' | 'fa' } = {},
): Promise<TestBrowser> {
  const browser = await launchBrowser(options.viewport ? { viewport: options.viewport } : {});
  const signedIn = await browser.context.request.post(url('/api/auth/login'), {
    data: { username: user.username, password: user.password },
    headers: { Origin: new URL(url('/')).origin },
  });
  if (signedIn.status() !== 200) {
    const answer = `sign-in answered ${signedIn.status()}: ${await signedIn.text()}`;
    await browser.close();
    throw new Error(answer);
  }
  if (options.language)
    await browser.context.addInitScript(`localStorage.setItem('warren.language', '${options.language}')`);
  return browser;
}
