import { readFileSync } from 'node:fs';
import { assertWebBuilt, launchBrowser, type TestBrowser } from '../support/browser.js';
import { fixtures } from '../support/fixtures.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';

// Evaluated in the page, where the DOM types are not part of this project's TypeScript setup.
declare const document: any;
declare const getComputedStyle: any;

const PHONE = { width: 390, height: 844 };

/**
 * The customer's page as a customer sees it: a phone, a browser that asks for Persian, and only
 * the link. It must read right to left with Persian digits, fit the screen, show each config's QR
 * code (inline, allowed by its CSP) and download it, and load nothing else from the panel.
 */
describe('the subscription page on a phone, in Persian', () => {
  let t: TestPanel;
  let token = '';
  const f = fixtures(() => ({ t, token }));
  let browser: TestBrowser | undefined;

  beforeAll(async () => {
    assertWebBuilt();
    t = await startTestPanel({ WARREN_BASE_PATH: '/x7k2' });
    token = await t.login();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  test('reads right to left, fits 390 px, shows QR codes and downloads a config', async () => {
    const iface = await f.createInterface();
    const client = await f.createClient({
      name: 'مریم',
      interfaceIds: [iface.id],
      deviceLimit: 2,
      deviceNames: ['گوشی', 'laptop'],
      quotaBytes: 50 * 2 ** 30,
      expiresAt: new Date(Date.now() + 30 * 86_400_000).toISOString(),
    });
    await t.query('update clients set used_bytes = $2, up_bytes = $3, down_bytes = $4 where id = $1', [
      client.id,
      12 * 2 ** 30,
      2 * 2 ** 30,
      10 * 2 ** 30,
    ]);
    const link = (await f.call('GET', `clients/${client.id}/subscription`)).body as { url: string };
    const profile = (await f.call('GET', `devices/${client.devices[0].id}/profile`)).body as {
      body: string;
      filename: string;
    };

    // The panel's customers speak Persian: the page's language is set so (the test browser's own locale is English).
    const settings = await f.call('PUT', 'subscription', {
      title: 'سرویس نمونه',
      supportContact: 'https://t.me/example_support',
      formats: ['conf', 'zip', 'json', 'base64'],
      language: 'fa',
    });
    expect(settings.status).toBe(200);
    browser = await launchBrowser({ viewport: PHONE });
    const refused: string[] = [];
    browser.page.on('console', (message) => {
      if (message.type() === 'error') refused.push(message.text());
    });
    await browser.page.goto(link.url);
    const page = browser.page;

    expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
    expect(await page.locator('html').getAttribute('lang')).toBe('fa');
    expect(await page.locator('h1').textContent()).toBe('سرویس نمونه');
    await expect(page.locator('[data-status="active"]').textContent()).resolves.toBe('فعال');
    const status = (await page.locator('#status').textContent()) ?? '';
    expect(status).toContain('مریم');
    expect(status).toMatch(/[۰-۹]/); // usage and days in Persian digits
    expect(status).not.toMatch(/[0-9]/);
    expect(await page.locator('h2').allTextContents()).toEqual(['گوشی', 'laptop']);
    // Names keep their own direction: a Latin one reads left to right in the Persian page, so its
    // punctuation stays where it was typed (the client's name, the title, each device's name).
    const direction = (node: any) => getComputedStyle(node).direction;
    expect(await page.locator('h2', { hasText: 'laptop' }).evaluate(direction)).toBe('ltr');
    expect(await page.locator('h2', { hasText: 'گوشی' }).evaluate(direction)).toBe('rtl');
    expect(await page.locator('p.name').getAttribute('dir')).toBe('auto');
    expect(await page.locator('h1').getAttribute('dir')).toBe('auto');

    // Two QR codes, drawn (an image the CSP blocked would have no size), and the page fits the phone.
    const qr = page.locator('img.qr');
    expect(await qr.count()).toBe(2);
    for (let i = 0; i < 2; i++) {
      const box = await qr.nth(i).boundingBox();
      expect(box!.width).toBeGreaterThan(200);
      expect(box!.x + box!.width).toBeLessThanOrEqual(PHONE.width);
      expect(await qr.nth(i).evaluate((img: any) => img.naturalWidth > 0)).toBe(true);
    }
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);

    // The config text reads left to right inside the right-to-left page.
    await page.locator('details summary').first().click();
    const pre = page.locator('pre').first();
    expect(await pre.evaluate((node: any) => getComputedStyle(node).direction)).toBe('ltr');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('a.button[href^="?download="]').first().click(),
    ]);
    expect(download.suggestedFilename()).toBe(profile.filename);
    expect(readFileSync((await download.path())!, 'utf8')).toBe(profile.body);

    // Nothing but the link itself was requested (no scripts, styles or API calls), and the CSP refused nothing.
    const origin = new URL(link.url);
    expect(
      browser.requests.every((request) => {
        const url = new URL(request.url);
        return url.origin === origin.origin && url.pathname === origin.pathname;
      }),
    ).toBe(true);
    expect(refused).toEqual([]);
    expect(browser.pageErrors).toEqual([]);

    // The language switch goes to English on the same page.
    await page.locator('nav a[hreflang="en"]').click();
    await page.waitForURL(/\?lang=en$/);
    expect(await page.locator('html').getAttribute('dir')).toBe('ltr');
    expect(await page.locator('[data-status="active"]').textContent()).toBe('Active');

    // A one-time link sent over chat: the page says it works once, its button downloads the
    // config, and the link is spent after that (opening the page itself spent nothing).
    const once = (await f.call('POST', `devices/${client.devices[0].id}/profile/link`, { minutes: 10 })).body as {
      url: string;
    };
    await page.goto(once.url);
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
    expect(await page.locator('#one-time').textContent()).toContain('یک بار');
    const [config] = await Promise.all([page.waitForEvent('download'), page.locator('#one-time a.button').click()]);
    expect(config.suggestedFilename()).toBe(profile.filename);
    expect(readFileSync((await config.path())!, 'utf8')).toBe(profile.body);
    const spent = await page.goto(once.url);
    expect(spent?.status()).toBe(404);
    expect(browser.pageErrors).toEqual([]);
  });
});
