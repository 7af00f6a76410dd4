import { PHONE } from '../support/browser.js';
import { fixtures, type ClientView } from '../support/fixtures.js';
import { waitFor } from '../support/wait-for.js';
import { webPanel } from '../support/web-panel.js';

/**
 * The client drawer's subscription link (issue 23, item 9) in a real browser (Debian's Chromium
 * through playwright-core): the link the API gives, copied, shown as a QR code (Escape closes the
 * code alone), and replaced by a new one after a dialog that says the old one stops working; the
 * old link then answers 404 and the new one the customer's page. A viewer (whom the API refuses
 * the link) sees no such section; in Persian on a phone the dialog says the same in Persian.
 */
// What the callbacks given to page.evaluate() see: they run in the page, not in Node.
declare const navigator: any;

describe('the subscription link in the client drawer', () => {
  const { session, url, browserAt } = webPanel();
  const f = fixtures(session);
  let client: ClientView;

  /** The link as the API gives it now. */
  const linkOf = async (id: string) => (await f.call('GET', `clients/${id}/subscription`)).body as { url: string };
  /** What a customer holding only the link gets: no credentials, no cookie. */
  const open = (link: string) => fetch(link, { headers: { Accept: 'text/html' } });

  beforeAll(async () => {
    const iface = await f.createInterface();
    client = await f.createClient({ name: 'link-holder', interfaceIds: [iface.id], deviceNames: ['phone'] });
  });

  test('copy, QR code, and a new link after a warning: the old one answers 404', async () => {
    const { page, pageErrors } = await browserAt();
    await page.goto(url(`/clients/${client.id}`));
    const shown = page.getByTestId('subscription-url');
    await shown.waitFor();
    const before = (await linkOf(client.id)).url;
    expect(await shown.textContent()).toBe(before);
    expect((await open(before)).status).toBe(200);

    await page.getByTestId('subscription-link').getByRole('button', { name: 'Copy link' }).click();
    await waitFor(
      'the link copied',
      async () => (await page.evaluate(() => navigator.clipboard.readText())) === before,
    );

    await page.getByTestId('subscription-qr-open').click();
    const qr = page.getByTestId('subscription-qr');
    await qr.waitFor();
    expect(await qr.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    // Escape closes the code alone; the drawer stays.
    await page.keyboard.press('Escape');
    await qr.waitFor({ state: 'detached' });
    await shown.waitFor();

    await page.getByTestId('subscription-rotate').click();
    const dialog = page.getByRole('dialog').filter({ has: page.getByTestId('confirm') });
    expect(await dialog.innerText()).toContain('The current link stops working at once');
    expect(await page.getByTestId('confirm').innerText()).toBe('New link');
    await page.getByTestId('confirm').click();
    await waitFor('the new link shown', async () => (await shown.textContent()) !== before);
    const after = (await linkOf(client.id)).url;
    expect(await shown.textContent()).toBe(after);
    await page.getByText('New link made; the old one no longer works.').waitFor();
    expect((await open(before)).status).toBe(404);
    expect((await open(after)).status).toBe(200);
    expect(pageErrors).toEqual([]);
  });

  test('a viewer sees no link; in Persian on a phone the warning is Persian', async () => {
    const viewer = await f.createUser('viewer');
    const seen = await browserAt({}, viewer);
    await seen.page.goto(url(`/clients/${client.id}`));
    await seen.page.getByRole('dialog').getByText('link-holder').first().waitFor();
    await seen.page.getByTestId('open-configs').waitFor();
    expect(await seen.page.getByTestId('subscription-link').count()).toBe(0);
    expect(seen.requests.some((request) => request.url.includes('/subscription'))).toBe(false);

    const { page } = await browserAt({ viewport: PHONE, language: 'fa' });
    await page.goto(url(`/clients/${client.id}`));
    await page.getByTestId('subscription-url').waitFor();
    await page.getByTestId('subscription-rotate').click();
    const dialog = page.getByRole('dialog').filter({ has: page.getByTestId('confirm') });
    expect(await dialog.innerText()).toContain('پیوند فعلی بی‌درنگ از کار می‌افتد');
    expect(await page.getByTestId('confirm').innerText()).toBe('پیوند جدید');
    await page.getByRole('button', { name: 'انصراف' }).click();
    await page.getByTestId('confirm').waitFor({ state: 'detached' });
    expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      PHONE.width,
    );
  });
});
