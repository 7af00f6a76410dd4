import { OWNER } from '../support/test-panel.js';
import type { Page } from 'playwright-core';
import { WEB_PAGES } from '../../libs/contracts/web-paths.js';
import { assertWebBuilt, openSettled, PHONE, signedInBrowser, type TestBrowser } from '../support/browser.js';
import { fixtures, signedInPanel } from '../support/fixtures.js';
import { waitFor } from '../support/wait-for.js';
import { nonPersian } from '../support/persian-text.js';

/**
 * A complete Persian (issue 21, items 5 and 14) in a real browser (Debian's Chromium through
 * playwright-core), at phone size: every page's visible text in Persian digits with no raw enum
 * value, the expiry picked on the Persian calendar, the language and theme switch on the sign-in
 * page, tags in their own case on one line, and one label for a confirm button.
 */
// What the callbacks given to page.evaluate() see: they run in the page, not in Node.
declare const document: any;

const session = signedInPanel();
const f = fixtures(session);

describe('the web panel in Persian', () => {
  const opened: TestBrowser[] = [];
  const url = (path: string) => `${session().t.panel.origin}${session().t.config.basePath}${path}`;
  let clientId = '';

  /** A phone-sized browser signed in as the owner, in Persian unless `language` says otherwise. */
  async function phone(language: 'fa' | 'en' | null = 'fa'): Promise<Page> {
    const { t } = session();
    const browser = await signedInBrowser((path) => `${t.panel.origin}${t.config.basePath}${path}`, OWNER, {
      viewport: PHONE,
      ...(language ? { language } : {}),
    });
    opened.push(browser);
    return browser.page;
  }

  beforeAll(async () => {
    assertWebBuilt();
    const { t, token } = session();
    const ok = async (answer: Promise<{ status: number; body: any }>, status = 200) => {
      const got = await answer;
      expect({ status: got.status, body: got.body }).toMatchObject({ status });
      return got.body;
    };
    const remote = await f.createNode({ name: 'north', address: 'vpn.example.com' });
    const tunnel = await f.createInterface({ name: 'tunnel', mode: 'amnezia', endpointHost: 'vpn.example.com' });
    await f.createInterface({ name: 'edge', nodeId: remote.id, endpointHost: 'vpn.example.com' });
    const client = await f.createClient({
      name: 'maryam',
      interfaceIds: [tunnel.id],
      quotaBytes: 5_000_000_000,
      expiresAt: new Date(Date.now() + 40 * 86_400_000).toISOString(),
      groups: ['Team'],
      resetCycle: 'monthly',
      deviceNames: ['phone'],
    });
    clientId = client.id;
    const second = await f.createClient({ name: 'reza', interfaceIds: [tunnel.id], deviceLimit: 0 });
    await ok(f.call('PATCH', `clients/${second.id}`, { enabled: false }));
    await f.createHost({ interfaceId: tunnel.id, name: 'mirror', address: 'alt.example.com' });
    await ok(f.call('POST', 'outbounds', { kind: 'socks', tag: 'MyHop', address: '203.0.113.7:1080' }), 201);
    await ok(f.call('POST', 'routing/rules', { name: 'via-hop', outboundTag: 'MyHop', domains: ['example.com'] }), 201);
    await f.createToken({ name: 'scripts', readOnly: true, routeGroups: ['clients', 'nodes'] });
    // A second operator for the Operators page (its sessions on the Account page are the owner's).
    await ok(f.call('POST', 'admins', { username: 'dana', password: 'temporary-for-dana', role: 'admin' }), 201);
    await ok(t.call('POST', 'backups', { token }), 201);
  });
  afterAll(async () => {
    for (const browser of opened) await browser.close();
  });

  test('every page in Persian at phone size: Persian digits only, no raw value', async () => {
    const page = await phone();
    const problems: string[] = [];
    for (const name of WEB_PAGES) {
      await openSettled(page, url(`/${name}`));
      if (name === 'system') await page.getByTestId('chart').first().waitFor();
      if (name === 'clients') await page.locator('[data-row="maryam"]').first().waitFor();
      if (name === 'backups') await page.getByText('.tar.gz', { exact: false }).first().waitFor();
      if (name === 'operators') await page.getByTestId('operator-dana').waitFor();
      if (name === 'audit') await page.locator('[data-testid="audit-list"] [data-entry]').first().waitFor();
      if (name === 'account') await page.getByTestId('two-factor-state').waitFor();
      // No page wider than the phone (Persian words are wider than "5m").
      expect([name, await page.evaluate(() => document.documentElement.scrollWidth)]).toEqual([name, PHONE.width]);
      // The API page shows the API's own texts (paths, examples) as the API sends them: its frame only.
      const root = name === 'api-docs' ? 'header' : 'body';
      for (const problem of await nonPersian(page, root)) problems.push(`/${name}: ${problem}`);
    }
    // The client's drawer; the forms of a new client and a new AmneziaWG interface.
    await openSettled(page, url(`/clients/${clientId}`));
    await page.getByRole('dialog').getByText('maryam').first().waitFor();
    for (const problem of await nonPersian(page)) problems.push(`/clients/{id}: ${problem}`);
    await openSettled(page, url('/clients'));
    await page.getByTestId('new-client').click();
    await page.getByTestId('client-submit').waitFor();
    for (const problem of await nonPersian(page, '[role="dialog"]')) problems.push(`new client: ${problem}`);
    await openSettled(page, url('/interfaces'));
    await page.getByTestId('new-interface').click();
    await page.getByRole('dialog').getByRole('combobox', { name: 'حالت' }).click();
    await page.getByRole('option', { name: 'AmneziaWG' }).click();
    await page.getByTestId('awg-fields').waitFor();
    for (const problem of await nonPersian(page, '[role="dialog"]')) problems.push(`new interface: ${problem}`);
    // Turning 2FA on (the QR code and the key to type), and the date filters' Persian calendar.
    await openSettled(page, url('/account'));
    await page.getByTestId('totp-password').fill(OWNER.password);
    await page.getByTestId('totp-start').click();
    await page.getByTestId('totp-qr').waitFor();
    for (const problem of await nonPersian(page)) problems.push(`2FA: ${problem}`);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(PHONE.width);
    await openSettled(page, url('/audit'));
    await page.getByTestId('audit-from').click();
    await page.getByTestId('jalali-calendar').waitFor();
    for (const problem of await nonPersian(page)) problems.push(`audit from: ${problem}`);
    expect(problems).toEqual([]);
  });

  test('the expiry is picked on the Persian calendar and stored as that day', async () => {
    const page = await phone();
    await openSettled(page, url('/clients'));
    await page.getByTestId('new-client').click();
    const dialog = page.getByRole('dialog');
    await dialog.locator('input[name="name"]').fill('jalali');
    await dialog.locator('.mantine-MultiSelect-input').click();
    await page.getByRole('option', { name: /^tunnel/ }).click();
    await page.keyboard.press('Escape');
    await dialog.getByTestId('expiry-jalali').click();
    const calendar = page.getByTestId('jalali-calendar');
    // This month on the Persian calendar, named as Persian calendars name it.
    const persianMonth = (date: Date) =>
      new Intl.DateTimeFormat('fa-u-ca-persian', { year: 'numeric', month: 'long' }).format(date);
    expect(await calendar.getByTestId('jalali-month').textContent()).toBe(persianMonth(new Date()));
    const days = await calendar.getByTestId('jalali-day').count();
    expect(days).toBeGreaterThanOrEqual(29);
    expect(days).toBeLessThanOrEqual(31);
    await calendar.getByRole('button', { name: 'ماه بعد' }).click();
    const next = await calendar.getByTestId('jalali-month').textContent();
    expect(next).not.toBe(persianMonth(new Date()));
    await calendar.getByTestId('jalali-day').filter({ hasText: /^۱۵$/ }).click();
    // The input says the day in Persian; the API stores that day (local midnight).
    await waitFor('the picked day shown', async () =>
      /۱۵/.test(await dialog.getByTestId('expiry-jalali').inputValue()),
    );
    // Escape closes the calendar alone; the form stays.
    await page.keyboard.press('Escape');
    await calendar.waitFor({ state: 'hidden' });
    await dialog.getByTestId('client-submit').click();
    const made = await waitFor('the client', async () => {
      const list = (await f.call('GET', 'clients?search=jalali')).body as { items: { expiresAt: string | null }[] };
      return list.items[0];
    });
    const stored = new Date(made.expiresAt!);
    const parts = Object.fromEntries(
      new Intl.DateTimeFormat('en-u-ca-persian-nu-latn', { year: 'numeric', month: 'long', day: 'numeric' })
        .formatToParts(stored)
        .map((part) => [part.type, part.value]),
    );
    expect(parts.day).toBe('15');
    expect(persianMonth(stored)).toBe(next);
    expect([stored.getHours(), stored.getMinutes()]).toEqual([0, 0]);
  });

  test('the sign-in page switches language and theme, and both are kept', async () => {
    const page = await phone(null);
    await page.goto(url('/sign-in'));
    await page.getByRole('heading', { name: 'Sign in to Warren' }).waitFor();
    await page.getByTestId('language-menu').click();
    await page.getByTestId('language-fa').click();
    await page.getByRole('heading', { name: 'ورود به Warren' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl');
    const scheme = () => page.evaluate(() => document.documentElement.getAttribute('data-mantine-color-scheme'));
    const before = await scheme();
    await page.getByRole('button', { name: 'پوسته روشن یا تیره' }).click();
    await waitFor('the other theme', async () => (await scheme()) !== before);
    const chosen = await scheme();
    await page.reload();
    await page.getByRole('heading', { name: 'ورود به Warren' }).waitFor();
    expect(await scheme()).toBe(chosen);
    // Nothing wider than the phone.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
  });

  test('tags keep their case on one line; a confirm button repeats its action', async () => {
    const page = await phone();
    await openSettled(page, url('/routing'));
    const tag = page.locator('.mantine-Badge-root', { hasText: 'MyHop' }).first();
    await tag.waitFor();
    expect(await tag.innerText()).toBe('MyHop');
    const oneLine = await tag.evaluate((element) => {
      const label = element.querySelector('.mantine-Badge-label') ?? element;
      return label.scrollWidth <= label.clientWidth + 1 && element.getBoundingClientRect().height < 32;
    });
    expect(oneLine).toBe(true);

    // Each destructive action's dialog: its confirm button says the action (the same word), and cancel.
    await openSettled(page, url(`/clients/${clientId}`));
    const drawer = page.getByRole('dialog').first();
    for (const action of ['بازنشانی ترافیک', 'کلیدهای جدید', 'حذف']) {
      await drawer.getByRole('button', { name: action, exact: true }).first().click();
      const confirm = page.getByTestId('confirm');
      await confirm.waitFor();
      expect(await confirm.innerText()).toBe(action);
      await page.getByRole('button', { name: 'انصراف' }).click();
      await confirm.waitFor({ state: 'detached' });
    }
  });
});
