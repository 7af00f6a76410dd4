import type { Page } from 'playwright-core';
import { assertWebBuilt, launchBrowser, type TestBrowser } from '../support/browser.js';
import { fixtures, signedInPanel } from '../support/fixtures.js';
import { OWNER } from '../support/test-panel.js';
import { waitFor } from '../support/wait-for.js';
import { errorUnder, expectErrorUnder } from '../support/field-error.js';

/**
 * The panel's forms, dialogs and drawers in a real browser (Debian's Chromium through
 * playwright-core) against a real panel serving dist/web: the API's refusals under each field in
 * the page's language, Escape closing one layer at a time, the interface delete that asks for the
 * name, and the forms' own defaults.
 */
// What the callbacks given to page.evaluate() see: they run in the page, not in Node.
declare const localStorage: any;
declare const document: any;

const session = signedInPanel();
const f = fixtures(session);

describe('forms, dialogs and drawers in a browser', () => {
  let browser: TestBrowser;
  let page: Page;
  const url = (path: string) => `${session().t.panel.origin}${session().t.config.basePath}${path}`;

  /** Opens `path` in `language` (kept in localStorage, as the header's switch keeps it). */
  async function open(path: string, language: 'en' | 'fa'): Promise<void> {
    await page.goto(url('/sign-in'));
    await page.evaluate((code) => localStorage.setItem('warren.language', code), language);
    await page.goto(url(path));
    await page.locator(`html[lang="${language}"]`).waitFor();
  }

  beforeAll(async () => {
    assertWebBuilt();
    browser = await launchBrowser();
    page = browser.page;
    await page.goto(url('/sign-in'));
    await page.getByLabel('Username').fill(OWNER.username);
    await page.getByRole('textbox', { name: 'Password' }).fill(OWNER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(() => {
    expect(browser.pageErrors).toEqual([]);
  });

  test('New client starts with the only interface; without it, the refusal is scrolled to and focused', async () => {
    // First in the file: the panel has no interface yet, so this one is the only one.
    const only = await f.createInterface();
    await open('/clients', 'en');
    await page.getByTestId('new-client').click();
    const dialog = page.getByRole('dialog');
    const input = dialog.getByTestId('client-interfaces');
    const pill = dialog.locator('.mantine-Pill-root').filter({ hasText: only.name });
    await pill.waitFor();
    // Cleared, the dialog scrolled down to its button, then Create: the API's refusal must show.
    await pill.locator('.mantine-Pill-remove').click();
    await pill.waitFor({ state: 'detached' });
    await dialog.getByTestId('client-submit').click();
    await expectErrorUnder(input, 'Choose at least one interface (or a group that gives some).');
    await waitFor('the interfaces input to have the focus', () =>
      page.evaluate(() => document.activeElement?.getAttribute('data-testid') === 'client-interfaces'),
    );
    // In view: below the dialog's header, above its bottom edge (not left under the header).
    const header = (await dialog.locator('.mantine-Modal-header').boundingBox())!;
    const content = (await dialog.boundingBox())!;
    const box = (await input.boundingBox())!;
    expect(box.y).toBeGreaterThanOrEqual(header.y + header.height);
    expect(box.y + box.height).toBeLessThanOrEqual(content.y + content.height);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  test('every refused field shows its own error under it, in Persian, and loses it when changed', async () => {
    await open('/interfaces', 'fa');
    await page.getByTestId('new-interface').click();
    const dialog = page.getByRole('dialog');
    await dialog.locator('input[name="name"]').fill('wgforms');
    const port = dialog.locator('input[name="listenPort"]');
    const mtu = dialog.locator('input[name="mtu"]');
    await port.fill('70000');
    await mtu.fill('100');
    await dialog.getByTestId('interface-submit').click();
    // Both at once, from one answer, each translated from its code and numbers.
    await expectErrorUnder(port, 'باید ۶۵۵۳۵ یا کمتر باشد.');
    await expectErrorUnder(mtu, 'باید ۵۷۶ یا بیشتر باشد.');
    await mtu.fill('1420');
    await expectErrorUnder(mtu, null);
    expect(await errorUnder(port)).toBe('باید ۶۵۵۳۵ یا کمتر باشد.');
    await port.fill('51999');
    await expectErrorUnder(port, null);
    await dialog.getByTestId('interface-submit').click();
    await page.getByText('اینترفیس ساخته شد').waitFor();
    await dialog.waitFor({ state: 'detached' });
  });

  test('Escape closes the QR code, then the configs, then the drawer: one layer a press', async () => {
    const iface = await f.createInterface();
    const client = await f.createClient({ interfaceIds: [iface.id] });
    await open(`/clients/${client.id}`, 'en');
    await page.getByTestId('open-configs').click();
    await page.getByTestId('show-qr').first().click();
    await page.getByTestId('qr-code').waitFor();
    const configs = page.getByRole('dialog', { name: 'Configs and QR codes' });
    const drawer = page.getByRole('dialog', { name: client.name });
    await page.keyboard.press('Escape');
    await page.getByTestId('qr-code').waitFor({ state: 'detached' });
    expect(await configs.isVisible()).toBe(true);
    await page.keyboard.press('Escape');
    await configs.waitFor({ state: 'detached' });
    expect(await drawer.isVisible()).toBe(true);
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'detached' });
  });

  test('deleting an interface with accounts says what goes with it and asks for its name typed', async () => {
    const iface = await f.createInterface();
    await f.createClient({ interfaceIds: [iface.id] });
    await open('/interfaces', 'en');
    const row = page.getByRole('row').filter({ hasText: iface.name });
    // One of each, said in the singular.
    await row.getByText('1 client, 1 device').waitFor();
    await row.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog', { name: 'Are you sure?' });
    await dialog
      .getByText(
        `Delete the interface ${iface.name} on ${(await f.getNode(iface.nodeId)).name}? Deleted with it: 1 device account of 1 client;`,
        {
          exact: false,
        },
      )
      .waitFor();
    const confirm = dialog.getByTestId('confirm');
    expect(await confirm.textContent()).toBe('Delete');
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByTestId('confirm-name').fill(`${iface.name}x`);
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByTestId('confirm-name').fill(iface.name);
    await confirm.click();
    await waitFor('the interface deleted', async () => {
      const left = await f.typed().GET('/api/interfaces');
      return !left.data!.some((entry) => entry.id === iface.id);
    });
    await page.getByText('Interface deleted').waitFor();
    await row.waitFor({ state: 'detached' });
  });

  test('sizes say what unit they are: 5,000,000,000 bytes is 4.7 GiB', async () => {
    const iface = await f.createInterface();
    const client = await f.createClient({ interfaceIds: [iface.id], quotaBytes: 5_000_000_000 });
    await open(`/clients/${client.id}`, 'en');
    await page.getByRole('dialog', { name: client.name }).getByText('0 B / 4.7 GiB', { exact: false }).waitFor();
    await page.keyboard.press('Escape');
  });

  test('a new interface is offered a port and subnet no interface uses', async () => {
    const before = (await f.typed().GET('/api/interfaces')).data!;
    if (!before.some((entry) => entry.listenPort === 51820)) await f.createInterface({ listenPort: 51820 });
    if (!before.some((entry) => entry.subnet === '10.8.0.0/24')) await f.createInterface({ subnet: '10.8.0.0/24' });
    const all = (await f.typed().GET('/api/interfaces')).data!;
    await open('/interfaces', 'en');
    await page.getByTestId('new-interface').click();
    const dialog = page.getByRole('dialog');
    const port = Number(await dialog.locator('input[name="listenPort"]').inputValue());
    const subnet = await dialog.locator('input[name="subnet"]').inputValue();
    expect(all.map((entry) => entry.listenPort)).not.toContain(port);
    expect(all.map((entry) => entry.subnet)).not.toContain(subnet);
    await dialog.locator('input[name="name"]').fill('wgnext');
    await dialog.getByTestId('interface-submit').click();
    await page.getByText('Interface created').waitFor();
    const made = (await f.typed().GET('/api/interfaces')).data!.find((entry) => entry.name === 'wgnext');
    expect([made?.listenPort, made?.subnet]).toEqual([port, subnet]);
  });

  test('a client with no name, no device limit (0) and "+30 days" is created as such', async () => {
    const iface = await f.createInterface();
    await open('/clients', 'en');
    await page.getByTestId('new-client').click();
    const dialog = page.getByRole('dialog');
    await dialog.locator('.mantine-MultiSelect-input').click();
    await page.getByRole('option', { name: iface.name }).click();
    const limit = dialog.locator('input[name="deviceLimit"]');
    await limit.fill('0');
    await limit.blur();
    expect(await limit.inputValue()).toBe('0');
    await dialog.getByRole('button', { name: '+30 days' }).click();
    const asked = Date.now();
    await dialog.getByTestId('client-submit').click();
    await page.getByText('Client created').waitFor();
    const listed = (await f.typed().GET('/api/clients', { params: { query: { search: 'client-' } } })).data!;
    const made = await waitFor('the new client', async () => {
      const ids = listed.items.map((item) => item.id);
      for (const id of ids) {
        const client = await f.getClient(id);
        if (client.interfaceIds.includes(iface.id)) return client;
      }
      return undefined;
    });
    expect(made.name).toMatch(/^client-[a-z0-9]{6}$/);
    expect(made.deviceLimit).toBe(0);
    // 30 days from when it was asked, to the minute (the input holds minutes).
    expect(Math.abs(new Date(made.expiresAt!).getTime() - (asked + 30 * 86_400_000))).toBeLessThan(120_000);
    await page.keyboard.press('Escape');
  });

  test('a new password typed differently twice is refused before any request, in Persian', async () => {
    await open('/account', 'fa');
    const inputs = page.locator('input[type="password"]');
    await inputs.nth(0).fill(OWNER.password);
    await inputs.nth(1).fill('another-password-1');
    await inputs.nth(2).fill('another-password-2');
    const sent = browser.requests.length;
    // The password form's own button: the page has a second form (two-factor sign-in).
    await page
      .locator('form')
      .filter({ has: inputs.nth(2) })
      .locator('button[type="submit"]')
      .click();
    await expectErrorUnder(inputs.nth(2), 'دو گذرواژه جدید یکسان نیستند.');
    expect(browser.requests.slice(sent).filter((request) => request.method === 'PATCH')).toEqual([]);
    await inputs.nth(2).fill('another-password-');
    await expectErrorUnder(inputs.nth(2), null);
  });
});
