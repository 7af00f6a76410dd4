import { generate } from 'otplib';
import type { Page } from 'playwright-core';
import { TotpClock } from '../../apps/controller/src/auth/totp/totp-clock.js';
import { assertWebBuilt, launchBrowser, type TestBrowser } from '../support/browser.js';
import { fixtures } from '../support/fixtures.js';
import { OWNER, startTestPanel, type TestPanel } from '../support/test-panel.js';

/**
 * Two-factor sign-in and scoped tokens in a real browser: a person turns 2FA on from the Account
 * page by reading the secret off the page (the test computes the code from it, as an app would),
 * sees the recovery codes once, then signs in with a code; the tokens area issues a scoped token
 * and shows its scope, expiry and last use. The panel's TOTP clock is set to chosen moments, so
 * no test waits for a time step to pass. Layout at phone size and in Persian.
 */
// What the callbacks given to page.evaluate() see: they run in the page, not in Node.
declare const document: any;
declare const window: any;

const PHONE = { width: 390, height: 844 };
/** 2026-01-01T00:00:00Z: the start of a 30-second step. */
const T0 = Date.UTC(2026, 0, 1);

let t: TestPanel;
let ownerToken = '';
const f = fixtures(() => ({ t, token: ownerToken }));
const opened: TestBrowser[] = [];
const url = (path: string) => `${t.panel.origin}${t.config.basePath}${path}`;

function setClock(at: number | null): void {
  t.panel.app.get(TotpClock).now = at === null ? () => Date.now() : () => at;
}
const codeAt = (secret: string, at: number) => generate({ secret, epoch: Math.floor(at / 1000) });

beforeAll(async () => {
  assertWebBuilt();
  t = await startTestPanel();
  ownerToken = await t.login();
});
afterEach(async () => {
  setClock(null);
  for (const browser of opened.splice(0)) {
    expect(browser.pageErrors).toEqual([]);
    await browser.close();
  }
});
afterAll(async () => {
  await t?.stop();
});

async function browserAt(options: { viewport?: typeof PHONE; language?: 'fa' } = {}): Promise<Page> {
  const browser = await launchBrowser(options.viewport ? { viewport: options.viewport } : {});
  opened.push(browser);
  if (options.language)
    await browser.context.addInitScript(`localStorage.setItem('warren.language', '${options.language}')`);
  return browser.page;
}

/** Signs in through the sign-in page as a person would (labels in `language`). */
async function signInOnPage(
  page: Page,
  user: { username: string; password: string },
  labels = { username: 'Username', password: 'Password', submit: 'Sign in' },
) {
  await page.goto(url('/sign-in'));
  await page.getByLabel(labels.username).fill(user.username);
  await page.getByRole('textbox', { name: labels.password }).fill(user.password);
  await page.getByRole('button', { name: labels.submit }).click();
}

/** On the Account page: starts 2FA, reads the secret off the page and confirms with its code at `at`. */
async function enrolOnPage(
  page: Page,
  at: number,
  password: string,
): Promise<{ secret: string; recoveryCodes: string[] }> {
  setClock(at);
  await page.goto(url('/account'));
  await page.getByTestId('totp-password').fill(password);
  await page.getByTestId('totp-start').click();
  const secret = (await page.getByTestId('totp-secret').innerText()).trim();
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  await page.getByTestId('totp-qr').waitFor();
  await page.getByTestId('totp-code').fill(await codeAt(secret, at));
  await page.getByTestId('totp-confirm').click();
  const list = page.getByTestId('recovery-codes');
  await list.waitFor();
  const recoveryCodes = (await list.locator('li').allInnerTexts()).map((code) => code.trim());
  return { secret, recoveryCodes };
}

test('a person turns 2FA on from the Account page, sees the recovery codes once, and signs in with a code', async () => {
  const user = await f.createUser('viewer');
  const page = await browserAt();
  await signInOnPage(page, user);
  await page.getByRole('heading', { name: 'Overview' }).waitFor();

  const { secret, recoveryCodes } = await enrolOnPage(page, T0, user.password);
  expect(recoveryCodes).toHaveLength(10);
  for (const code of recoveryCodes) expect(code).toMatch(/^[a-z2-7]{5}-[a-z2-7]{5}$/);
  await page.getByTestId('recovery-codes-done').click();
  await page.getByTestId('two-factor-state').filter({ hasText: 'On' }).waitFor();
  expect(await page.getByTestId('recovery-codes-left').innerText()).toBe('10 recovery codes left.');
  // Shown once: a reload shows neither the codes nor the secret.
  await page.reload();
  await page.getByTestId('recovery-codes-left').waitFor();
  const text = await page.locator('body').innerText();
  expect(text).not.toContain(recoveryCodes[0]);
  expect(text).not.toContain(secret);

  // Signing in again: the password alone asks for the code; a wrong one is refused under the field.
  await page.context().clearCookies();
  await signInOnPage(page, user);
  const codeField = page.getByTestId('sign-in-code');
  await codeField.waitFor();
  await codeField.fill('000000');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByText('The code is wrong, expired or already used.').first().waitFor();
  setClock(T0 + 60_000);
  await codeField.fill(await codeAt(secret, T0 + 60_000));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();

  // A recovery code signs in too, and the Account page counts it as spent.
  await page.context().clearCookies();
  await signInOnPage(page, user);
  await codeField.fill(recoveryCodes[0]);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  await page.goto(url('/account'));
  await page.getByTestId('recovery-codes-left').filter({ hasText: '9 recovery codes left.' }).waitFor();

  // Turning it off with a code: the page says Off and offers to turn it on again.
  setClock(T0 + 120_000);
  await page.getByTestId('totp-code').fill(await codeAt(secret, T0 + 120_000));
  await page.getByTestId('totp-disable').click();
  await page.getByTestId('totp-start').waitFor();
  await page.getByTestId('two-factor-state').filter({ hasText: 'Off' }).waitFor();
}, 120_000);

test('on a phone in Persian, enrolling and the code question fit the screen and speak Persian', async () => {
  const user = await f.createUser('admin');
  const page = await browserAt({ viewport: PHONE, language: 'fa' });
  const persian = { username: 'نام کاربری', password: 'گذرواژه', submit: 'ورود' };
  await signInOnPage(page, user, persian);
  await page.locator('main h2').waitFor();
  setClock(T0);
  await page.goto(url('/account'));
  await page.getByText('ورود دومرحله‌ای', { exact: true }).waitFor();
  await page.getByTestId('totp-password').fill(user.password);
  await page.getByTestId('totp-start').click();
  await page.getByTestId('totp-qr').waitFor();
  const layout = async (testId: string) =>
    page.evaluate((id: string) => {
      const box = document.querySelector(`[data-testid="${id}"]`).getBoundingClientRect();
      return {
        dir: document.documentElement.dir,
        pageWidth: document.documentElement.scrollWidth,
        inside: box.left >= 0 && box.right <= window.innerWidth,
      };
    }, testId);
  for (const id of ['two-factor', 'totp-qr', 'totp-secret']) {
    expect([id, await layout(id)]).toEqual([id, { dir: 'rtl', pageWidth: expect.any(Number), inside: true }]);
    expect((await layout(id)).pageWidth).toBeLessThanOrEqual(PHONE.width);
  }
  const secret = (await page.getByTestId('totp-secret').innerText()).trim();
  await page.getByTestId('totp-code').fill(await codeAt(secret, T0));
  await page.getByTestId('totp-confirm').click();
  await page.getByTestId('recovery-codes').waitFor();
  expect(await layout('recovery-codes')).toEqual({ dir: 'rtl', pageWidth: expect.any(Number), inside: true });
  expect((await layout('recovery-codes')).pageWidth).toBeLessThanOrEqual(PHONE.width);
  await page.getByTestId('recovery-codes-done').click();
  // Persian digits in the count of recovery codes.
  expect(await page.getByTestId('recovery-codes-left').innerText()).toContain('۱۰');

  await page.context().clearCookies();
  await signInOnPage(page, user, persian);
  await page.getByLabel('کد ورود دومرحله‌ای').waitFor();
  expect(await layout('sign-in-code')).toEqual({ dir: 'rtl', pageWidth: expect.any(Number), inside: true });
  setClock(T0 + 60_000);
  await page.getByLabel('کد ورود دومرحله‌ای').fill(await codeAt(secret, T0 + 60_000));
  await page.getByRole('button', { name: 'ورود' }).click();
  await page.locator('main h2').waitFor();
  expect(new URL(page.url()).pathname).not.toContain('sign-in');
}, 120_000);

test('the tokens area issues a scoped token and shows its scope, expiry and last use', async () => {
  const page = await browserAt();
  await signInOnPage(page, OWNER);
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  await page.goto(url('/nodes'));
  const area = page.getByTestId('tokens-area');
  await area.waitFor();
  await page.getByTestId('token-name').fill('dashboard');
  await page.getByTestId('token-read-only').check();
  await page.getByTestId('token-expires').fill('2099-06-30T12:00');
  await area.locator('.mantine-MultiSelect-input').click();
  await page.getByRole('option', { name: 'Clients' }).click();
  await page.getByRole('option', { name: 'Devices' }).click();
  await page.keyboard.press('Escape');
  await page.getByTestId('issue-token').click();
  const issued = (await page.getByTestId('issued-token').innerText()).trim();
  expect(issued).toMatch(/^wrn_/);

  const row = area.locator('tbody tr', { hasText: 'dashboard' });
  await row.waitFor();
  const scope = row.getByTestId('token-scope');
  await scope.waitFor();
  expect((await scope.locator('.mantine-Badge-label').allTextContents()).sort()).toEqual(
    ['Clients', 'Devices', 'Read-only'].sort(),
  );
  expect(await row.innerText()).toContain('2099');
  const listed = (await t.call('GET', 'tokens', { token: ownerToken })).body.find(
    (token: { name: string }) => token.name === 'dashboard',
  );
  expect(listed).toMatchObject({ readOnly: true, routeGroups: ['clients', 'devices'], lastUsedAt: null });
  expect(new Date(listed.expiresAt).getFullYear()).toBe(2099);

  // Not used yet: the last-use cell is the only empty one. Used once: the area shows when, after a reload.
  expect(await row.innerText()).toContain('—');
  expect((await t.call('GET', 'clients', { token: issued })).status).toBe(200);
  await page.reload();
  const usedRow = page.getByTestId('tokens-area').locator('tbody tr', { hasText: 'dashboard' });
  await usedRow.waitFor();
  expect(await usedRow.innerText()).not.toContain('—');
}, 120_000);
