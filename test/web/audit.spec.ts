import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { assertWebBuilt, signedInBrowser, type TestBrowser } from '../support/browser.js';
import { fixtures, type TestUser } from '../support/fixtures.js';
import { OWNER, startTestPanel, type TestPanel } from '../support/test-panel.js';
import { waitFor } from '../support/wait-for.js';

/**
 * The Audit page in a real browser: the owner's filters (action, actor, target, outcome, time
 * range), older entries by cursor, changes shown old → new with secrets as "changed", the page
 * hidden from other roles, and a phone in Persian.
 */
// What the callbacks given to page.evaluate() see: they run in the page, not in Node.
declare const document: any;
declare const window: any;

const PHONE = { width: 390, height: 844 };
/** More than one page of the Audit page (50 entries). */
const CREATED = 55;

describe('the Audit page', () => {
  let t: TestPanel;
  let token = '';
  const f = fixtures(() => ({ t, token }));
  const url = (path: string) => `${t.panel.origin}${t.config.basePath}${path}`;
  const opened: TestBrowser[] = [];
  let admin: TestUser;
  let renamed: string;
  const hopPassword = 'hop-secret-password-9431';

  /** A browser signed in as `user` (the owner unless given), in `language`. */
  async function browserAt(
    options: { viewport?: typeof PHONE; language?: 'fa'; user?: { username: string; password: string } } = {},
  ): Promise<Page> {
    const browser = await signedInBrowser(
      (path) => `${t.panel.origin}${t.config.basePath}${path}`,
      options.user ?? OWNER,
      options,
    );
    opened.push(browser);
    return browser.page;
  }

  const entries = (page: Page) => page.locator('[data-testid="audit-list"] [data-entry]');

  async function pick(page: Page, testId: string, option: string): Promise<void> {
    await page.getByTestId(testId).click();
    await page.getByRole('option', { name: option, exact: true }).click();
  }

  beforeAll(async () => {
    assertWebBuilt();
    t = await startTestPanel();
    token = await t.login();
    admin = await f.createUser('admin');
    const iface = await f.createInterface();
    let last = '';
    for (let i = 0; i < CREATED; i++)
      last = (await f.createClient({ name: `audit-web-${String(i).padStart(2, '0')}`, interfaceIds: [iface.id] })).id;
    renamed = `audit-web-renamed`;
    expect((await f.call('PATCH', `clients/${last}`, { name: renamed, quotaBytes: 5000 })).status).toBe(200);
    const node = await f.createNode();
    const hop = await f.call('POST', 'outbounds', {
      nodeId: node.id,
      kind: 'socks',
      tag: 'audit-web-hop',
      address: '192.0.2.45:1080',
      username: 'hopuser',
      password: hopPassword,
    });
    expect(hop.status).toBe(201);
  }, 120_000);
  afterAll(async () => {
    for (const browser of opened) await browser.close();
    await t?.stop();
  });

  test('filters by action show a change old → new; older entries come a page at a time until there are none', async () => {
    const page = await browserAt();
    await page.goto(url('/audit'));
    await entries(page).first().waitFor();

    await pick(page, 'audit-action', 'Client changed');
    await waitFor('only the client change', async () => (await entries(page).count()) === 1 || undefined);
    const change = entries(page).first();
    expect(await change.getAttribute('data-action')).toBe('clients.update');
    const changes = await change.getByTestId('audit-changes').innerText();
    expect(changes).toMatch(new RegExp(`Name: audit-web-54 → ${renamed}`));
    expect(changes).toMatch(/Quota \(bytes\): 0 → 5,000/);
    expect(await change.getByTestId('audit-outcome-badge').textContent()).toBe('Done');

    await pick(page, 'audit-action', 'Client created');
    await waitFor('a first page of creations', async () => (await entries(page).count()) === 50 || undefined);
    await page.getByTestId('audit-more').click();
    await waitFor('the older ones', async () => (await entries(page).count()) === CREATED || undefined);
    await page.getByTestId('audit-end').waitFor();
    const names = await entries(page).allInnerTexts();
    // Newest first: the last client made is the first row (named as it was made).
    expect(names[0]).toContain('audit-web-54');
    expect(names.at(-1)).toContain('audit-web-00');
  });

  test('a port reads digit by digit, not grouped in thousands', async () => {
    const page = await browserAt();
    await page.goto(url('/audit'));
    await pick(page, 'audit-action', 'Interface created');
    await waitFor('the interface', async () => (await entries(page).count()) === 1 || undefined);
    const created = await entries(page).first().getByTestId('audit-changes').innerText();
    // freshInterface's first port: 40001, not "40,001".
    expect(created).toMatch(/40001/);
    expect(created).not.toMatch(/40,001/);
  });

  test('secrets read "changed", never their value; actor, outcome and time range filter', async () => {
    const page = await browserAt();
    await page.goto(url('/audit'));
    await pick(page, 'audit-action', 'Outbound created');
    await waitFor('the outbound', async () => (await entries(page).count()) === 1 || undefined);
    const row = entries(page).first();
    expect(await row.locator('[data-field="password"] [data-testid="secret-changed"]').textContent()).toBe('changed');
    expect(await page.content()).not.toContain(hopPassword);

    await page.getByTestId('audit-clear').click();
    await page.getByTestId('audit-actor').fill(admin.username);
    await waitFor('the admin’s sign-in alone', async () => {
      const actions = await entries(page).evaluateAll((rows: any[]) => rows.map((r) => r.getAttribute('data-action')));
      return actions.length === 1 && actions[0] === 'auth.login';
    });
    await page.getByTestId('audit-clear').click();
    await pick(page, 'audit-outcome', 'Refused');
    await page.getByTestId('empty-state').waitFor();

    await page.getByTestId('audit-clear').click();
    await entries(page).first().waitFor();
    await page.getByTestId('audit-from').fill('2099-01-01T00:00');
    await page.getByTestId('empty-state').waitFor();
  });

  test('every entry in words: a batch, a reseller’s ceilings, a checked outbound by name; long values wrap', async () => {
    const iface = await f.createInterface();
    const batch = await f.call('POST', 'clients/batch', {
      namePrefix: 'audit-batch-',
      count: 2,
      start: 7,
      digits: 3,
      devicesEach: 1,
      interfaceIds: [iface.id],
    });
    expect(batch.status).toBeLessThan(300);
    const limits = { maxClients: 4, trafficPoolBytes: 2 * 1024 ** 3, maxExpiryDays: 30 };
    const made = await f.call('POST', 'admins', {
      username: 'audit-ceilings',
      password: 'audit-ceilings-pass-1',
      role: 'reseller',
      limits,
    });
    expect(made.status).toBe(201);
    const [direct] = await t.query<{ id: string }>("select id from outbounds where tag = 'direct' limit 1");
    expect((await f.call('POST', `outbounds/${direct.id}/check?mode=tcp`)).status).toBe(200);
    // One long unbroken value: it must wrap, not widen the table past its area.
    // (Made with it, not changed: the Persian test below counts the one client change.)
    await f.createClient({ name: 'audit-long-note', interfaceIds: [iface.id], note: 'x'.repeat(400) });

    const page = await browserAt({ viewport: { width: 1400, height: 900 } });
    await page.goto(url('/audit'));
    await entries(page).first().waitFor();
    const batchEntry = page.locator('[data-action="clients.batch"]').first();
    expect(await batchEntry.getByTestId('audit-action-cell').innerText()).toBe('Clients created in a batch');
    const batchChanges = await batchEntry.getByTestId('audit-changes').innerText();
    for (const field of ['How many: 2', 'First number: 7', 'Digits: 3', 'Devices each: 1'])
      expect(batchChanges).toContain(field);
    const ceilings = await page
      .locator('[data-action="admins.create"]')
      .first()
      .getByTestId('audit-changes')
      .innerText();
    expect(ceilings).toContain('Most clients: 4');
    expect(ceilings).toContain('Longest expiry (days): 30');
    expect(ceilings).not.toContain('{');
    const check = page.locator('[data-action="outbounds.check"]').first();
    expect(await check.innerText()).toContain('direct');
    expect(await check.innerText()).not.toContain(direct.id);
    // The sign-in's target reads as a word, not `auth`.
    expect(await page.locator('[data-action="auth.login"]').first().innerText()).toContain('Sign-in');
    const fits = await page.getByTestId('audit-wrap').evaluate((wrap: any) => ({
      table: wrap.querySelector('table').getBoundingClientRect().width,
      area: wrap.getBoundingClientRect().width,
    }));
    expect(fits.table).toBeLessThanOrEqual(fits.area + 1);
  });

  test('only the owner has the page: an admin sees no menu entry and is told so', async () => {
    const page = await browserAt({ user: admin });
    await page.goto(url('/overview'));
    await page.getByRole('link', { name: 'Backups' }).waitFor();
    expect(await page.getByRole('link', { name: 'Audit log' }).count()).toBe(0);
    await page.goto(url('/audit'));
    await page.getByText('Only the owner reads the audit log.').waitFor();
  });

  test('on a phone in Persian: cards within the screen, Persian words and digits, secrets as changed', async () => {
    const page = await browserAt({ viewport: PHONE, language: 'fa' });
    await page.goto(url('/audit'));
    const cards = page.locator('[data-testid="audit-list"] [data-testid="list-card"]');
    await cards.first().waitFor();
    await pick(page, 'audit-action', 'ویرایش کاربر');
    await waitFor('the change alone', async () => (await cards.count()) === 1 || undefined);
    const layout = await page.evaluate(() => {
      const within = (element: any) => {
        const box = element.getBoundingClientRect();
        return box.left >= 0 && box.right <= window.innerWidth;
      };
      const cards = [...document.querySelectorAll('[data-testid="audit-list"] [data-testid="list-card"]')];
      return {
        dir: document.documentElement.dir,
        pageWidth: document.documentElement.scrollWidth,
        cardsInside: cards.every(within),
        text: cards.map((card: any) => card.innerText).join('\n'),
      };
    });
    expect(layout.dir).toBe('rtl');
    expect(layout.pageWidth).toBeLessThanOrEqual(PHONE.width);
    expect(layout.cardsInside).toBe(true);
    expect(layout.text).toContain('ویرایش کاربر');
    expect(layout.text).toContain('انجام شد');
    // The date and the quota in Persian digits; no Latin digit but in the names and the address.
    expect(layout.text).toMatch(/[۰-۹]/);
    expect(layout.text).toContain('۵٬۰۰۰');

    await pick(page, 'audit-action', 'ساخت خروجی');
    await waitFor('the outbound', async () => (await cards.count()) === 1 || undefined);
    expect(await cards.first().locator('[data-testid="secret-changed"]').textContent()).toBe('تغییر کرد');
  });
  test('a refusal reads in the panel’s language by its code; the English sentence stays as its tooltip', async () => {
    const missing = await f.call('PATCH', `clients/${randomUUID()}`, { note: 'x' });
    expect(missing.status).toBe(404);
    const long = await f.call('POST', 'clients', { name: 'x'.repeat(300) });
    expect([long.status, long.body.errors?.[0]?.code]).toEqual([400, 'tooLong']);
    const expected: ['fa' | undefined, string, string[]][] = [
      [undefined, 'Refused', ['A field was too long.', 'What it named does not exist.']],
      ['fa', 'رد شد', ['آنچه نام برده شده بود وجود ندارد.', 'یک فیلد بیش از اندازه بلند بود.']],
    ];
    for (const [language, refusedLabel, texts] of expected) {
      const page = await browserAt(language ? { language } : {});
      await page.goto(url('/audit'));
      await pick(page, 'audit-outcome', refusedLabel);
      const errors = page.getByTestId('audit-error');
      await waitFor('the two refusals', async () => (await errors.count()) === 2 || undefined);
      expect((await errors.allTextContents()).sort()).toEqual([...texts].sort());
      const titles = await errors.evaluateAll((nodes: any[]) => nodes.map((node) => node.getAttribute('title')));
      expect(titles.sort()).toEqual([long.body.error, missing.body.error].sort());
      expect(await errors.evaluateAll((nodes: any[]) => nodes.map((node) => node.dataset.code).sort())).toEqual([
        'notFound',
        'tooLong',
      ]);
    }
  });
});
