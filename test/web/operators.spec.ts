import type { Page } from 'playwright-core';
import { assertWebBuilt, launchBrowser, openSettled, type TestBrowser } from '../support/browser.js';
import { fixtures, signedInPanel } from '../support/fixtures.js';
import { OWNER } from '../support/test-panel.js';
import { waitFor } from '../support/wait-for.js';

/**
 * The Operators page (owner only) and the Account page's sessions in a real browser against a
 * real panel serving dist/web: creating, editing, disabling and deleting (after typing the name)
 * an operator, the forced change of a temporary password, sessions listed and ended; Persian at
 * phone size for the layout.
 */
// What the callbacks given to page.evaluate() see: they run in the page, not in Node.
declare const document: any;
declare const window: any;
declare const localStorage: any;

const session = signedInPanel();
const f = fixtures(session);
const url = (path: string) => `${session().t.panel.origin}${session().t.config.basePath}${path}`;

async function signInAs(page: Page, username: string, password: string): Promise<void> {
  await page.goto(url('/sign-in'));
  await page.getByLabel('Username').fill(username);
  await page.getByRole('textbox', { name: 'Password' }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Whether nothing on the page is wider than the screen (a phone would scroll sideways). */
const fitsTheScreen = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth) as Promise<boolean>;

const operatorsOf = async () =>
  session().t.query<{ username: string; role: string; enabled: boolean; must_change_password: boolean }>(
    'select username, role, enabled, must_change_password from users',
  );

describe('the Operators page', () => {
  let browser: TestBrowser;
  let page: Page;

  beforeAll(async () => {
    assertWebBuilt();
    browser = await launchBrowser();
    page = browser.page;
    await signInAs(page, OWNER.username, OWNER.password);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(() => {
    expect(browser.pageErrors).toEqual([]);
  });

  test('the owner creates an operator, who must choose their own password at the first sign-in', async () => {
    await page.getByRole('link', { name: 'Operators' }).click();
    await page.getByTestId('operators-table').waitFor();
    // The owner's own row has no edit or delete: the API refuses changing one's own role or deleting oneself.
    const own = page.getByTestId(`operator-${OWNER.username}`);
    await own.waitFor();
    expect(await own.getByRole('button').count()).toBe(0);

    await page.getByTestId('new-operator').click();
    const dialog = page.getByRole('dialog');
    await dialog.getByTestId('operator-username').fill('dana');
    await dialog.getByTestId('operator-password').fill('short');
    await dialog.getByTestId('operator-role').click();
    await page.getByRole('option', { name: 'Admin' }).click();
    await dialog.getByTestId('save-operator').click();
    // The API's refusal under the field it names; what was typed stays.
    await dialog.getByText('Needs at least 8 characters.').waitFor();
    expect(await dialog.getByTestId('operator-username').inputValue()).toBe('dana');
    await dialog.getByTestId('operator-password').fill('temporary-for-dana');
    await dialog.getByTestId('save-operator').click();
    const row = page.getByTestId('operator-dana');
    await row.getByText('Temporary password').waitFor();
    await row.getByText('Admin').waitFor();
    expect((await operatorsOf()).find((user) => user.username === 'dana')).toEqual({
      username: 'dana',
      role: 'admin',
      enabled: true,
      must_change_password: true,
    });

    const second = await launchBrowser();
    try {
      await signInAs(second.page, 'dana', 'temporary-for-dana');
      const required = second.page.getByTestId('password-required');
      await required.waitFor();
      const inputs = required.locator('input[type="password"]');
      await inputs.nth(0).fill('temporary-for-dana');
      await inputs.nth(1).fill('danas-own-passphrase');
      await inputs.nth(2).fill('danas-own-passphrase');
      await required.getByTestId('change-password').click();
      await second.page.getByRole('heading', { name: 'Overview' }).waitFor();
      // An admin does not see the Operators page in the menu, and opening it asks nothing of the API.
      expect(await second.page.getByRole('link', { name: 'Operators' }).count()).toBe(0);
      await openSettled(second.page, url('/operators'));
      await second.page.getByText('Only the owner manages operators.').waitFor();
      expect(second.requests.filter((request) => request.url.includes('/api/admins'))).toEqual([]);
      expect(second.pageErrors).toEqual([]);
    } finally {
      await second.close();
    }
    await page.reload();
    await page.getByTestId('operator-dana').getByText('Enabled').waitFor();
    expect(await page.getByTestId('operator-dana').getByText('Temporary password').count()).toBe(0);
  });

  test('the owner disables an operator, whose session stops at once, and deletes them after typing the name', async () => {
    const user = await f.createUser('viewer');
    await openSettled(page, url('/operators'));
    const row = page.getByTestId(`operator-${user.username}`);
    await row.getByRole('button', { name: 'Edit' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByTestId('operator-enabled').click();
    await dialog.getByTestId('save-operator').click();
    await row.getByText('Disabled').waitFor();
    expect((await session().t.call('GET', 'auth/me', { token: user.token })).status).toBe(401);

    await row.getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog').getByTestId('confirm');
    expect(await confirm.isDisabled()).toBe(true);
    await page.getByTestId('confirm-name').fill(user.username.slice(0, -1));
    expect(await confirm.isDisabled()).toBe(true);
    await page.getByTestId('confirm-name').fill(user.username);
    await confirm.click();
    await row.waitFor({ state: 'detached' });
    expect((await operatorsOf()).map((row) => row.username)).not.toContain(user.username);
  });

  test('the owner sets a temporary password for an operator', async () => {
    const user = await f.createUser('admin');
    await openSettled(page, url('/operators'));
    const row = page.getByTestId(`operator-${user.username}`);
    await row.getByRole('button', { name: 'Edit' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByTestId('operator-password').fill('reset-by-the-owner');
    await dialog.getByTestId('save-operator').click();
    await row.getByText('Temporary password').waitFor();
    const signedIn = await session().t.call('POST', 'auth/login', {
      body: { username: user.username, password: 'reset-by-the-owner' },
    });
    expect([signedIn.status, signedIn.body.mustChangePassword]).toEqual([200, true]);
  });

  test('in Persian on a phone: the Operators page and the Account page’s sessions fit the screen', async () => {
    // An owner of its own, so that ending "every other session" ends only theirs.
    const { t } = session();
    const made = await t.call('POST', 'admins', {
      token: session().token,
      body: { username: 'mina', password: 'temporary-for-mina', role: 'owner' },
    });
    expect(made.status).toBe(201);
    const first = (await t.call('POST', 'auth/login', { body: { username: 'mina', password: 'temporary-for-mina' } }))
      .body.token as string;
    const changed = await t.call('POST', 'auth/password', {
      token: first,
      body: { currentPassword: 'temporary-for-mina', newPassword: 'minas-own-passphrase' },
    });
    expect(changed.status).toBe(200);
    const phone = await launchBrowser({ viewport: { width: 390, height: 844 } });
    try {
      const view = phone.page;
      await view.goto(url('/sign-in'));
      await view.evaluate(() => localStorage.setItem('warren.language', 'fa'));
      await view.goto(url('/sign-in'));
      await view.locator('html[lang="fa"]').waitFor();
      await view.getByLabel('نام کاربری').fill('mina');
      await view.getByRole('textbox', { name: 'گذرواژه' }).fill('minas-own-passphrase');
      await view.locator('form button[type="submit"]').click();
      await view.locator('main h2').waitFor();
      // The menu (a drawer on a phone) lists the page under its Persian name.
      await view.getByRole('button', { name: 'منو' }).click();
      await view.getByRole('link', { name: 'اپراتورها' }).click();
      await view.getByRole('heading', { name: 'اپراتورها' }).waitFor();
      // Rows are cards on a phone; the role is a word, never the raw value; counts in Persian digits.
      const own = view.getByTestId('operator-mina');
      await own.getByText('مالک').waitFor();
      await own.getByText(/[۰-۹]+ نشست/).waitFor();
      expect(await own.innerText()).not.toMatch(/owner|[0-9]/);
      expect(await fitsTheScreen(view)).toBe(true);

      // `first` is another session of hers, to end from the Account page.
      await openSettled(view, url('/account'));
      const sessions = view.getByTestId('sessions');
      await sessions.getByText('همین نشست').waitFor();
      await waitFor(
        'two sessions or more listed',
        async () => (await sessions.getByTestId('session-other').count()) > 0,
      );
      expect(await fitsTheScreen(view)).toBe(true);
      await sessions.getByTestId('end-other-sessions').click();
      await view.getByRole('dialog').getByTestId('confirm').click();
      await waitFor('only this session left', async () => (await sessions.getByTestId('session-other').count()) === 0);
      expect((await t.call('GET', 'auth/me', { token: first })).status).toBe(401);
      expect((await t.call('GET', 'auth/me', { token: session().token })).status).toBe(200);
      expect(phone.pageErrors).toEqual([]);
    } finally {
      await phone.close();
    }
  });
});
