import type { Page } from 'playwright-core';
import { assertWebBuilt, PHONE, signedInBrowser, type TestBrowser } from '../support/browser.js';
import { OWNER, startTestPanel, type TestPanel } from '../support/test-panel.js';
import { waitFor } from '../support/wait-for.js';

/**
 * What the Nodes page says before and after, in a real browser: the add-node dialog of a panel
 * on the embedded queue (no REDIS_URL) says a remote node needs REDIS_URL before anything is
 * added (issue 21 item 13), and the banner that showed a new token's secret goes when that token
 * is deleted (item 14).
 */
// What the callbacks given to page.evaluate() see: they run in the page, not in Node.
declare const document: any;

const opened: TestBrowser[] = [];
afterAll(async () => {
  for (const browser of opened) await browser.close();
});

async function browserOn(
  t: TestPanel,
  options: { viewport?: typeof PHONE; language?: 'fa' } = {},
): Promise<{ page: Page; url: (path: string) => string }> {
  const url = (path: string) => `${t.panel.origin}${t.config.basePath}${path}`;
  const browser = await signedInBrowser(url, OWNER, options);
  opened.push(browser);
  return { page: browser.page, url };
}

describe('a panel with Redis', () => {
  let t: TestPanel;
  beforeAll(async () => {
    assertWebBuilt();
    t = await startTestPanel();
  });
  afterAll(async () => {
    await t?.stop();
  });

  test('the add-node dialog has no REDIS_URL warning: remote nodes enrol', async () => {
    const { page, url } = await browserOn(t);
    await page.goto(url('/nodes'));
    const answered = page.waitForResponse((response) => response.url().endsWith('/api/overview/full'));
    await page.getByTestId('new-node').click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').waitFor();
    // The panel state the dialog asks for came, and it says remote nodes enrol.
    expect((await (await answered).json()).panel.remoteNodes).toBe(true);
    await dialog.getByLabel('Name').fill('after-answer');
    expect(await dialog.getByTestId('remote-needs-redis').count()).toBe(0);
  });

  test('deleting a token clears the banner with its secret; deleting another token leaves it', async () => {
    const { page, url } = await browserOn(t);
    await page.goto(url('/nodes'));
    const area = page.getByTestId('tokens-area');
    for (const name of ['kept-token', 'shown-token']) {
      await area.getByTestId('token-name').fill(name);
      await area.getByTestId('issue-token').click();
      await area.getByRole('cell', { name, exact: true }).waitFor();
    }
    const banner = area.getByTestId('issued-banner');
    await banner.getByText('Token “shown-token” issued').waitFor();
    const secret = await banner.getByTestId('issued-token').textContent();
    expect(secret).toMatch(/^wrn_/);

    const deleteRow = async (name: string) => {
      await area.getByRole('row').filter({ hasText: name }).getByRole('button', { name: 'Delete' }).click();
      await page.getByTestId('confirm').click();
      await area.getByRole('cell', { name, exact: true }).waitFor({ state: 'detached' });
    };
    await deleteRow('kept-token');
    expect(await banner.getByTestId('issued-token').textContent()).toBe(secret);
    await deleteRow('shown-token');
    await banner.waitFor({ state: 'detached' });
    expect(await page.getByText(secret!).count()).toBe(0);
  });
});

describe('a panel on the embedded queue (no REDIS_URL)', () => {
  let t: TestPanel;
  beforeAll(async () => {
    assertWebBuilt();
    t = await startTestPanel({ REDIS_URL: '' });
  });
  afterAll(async () => {
    await t?.stop();
  });

  test('the add-node dialog says beforehand that a remote node needs REDIS_URL', async () => {
    const { page, url } = await browserOn(t);
    await page.goto(url('/nodes'));
    await page.getByTestId('new-node').click();
    const warning = page.getByRole('dialog').getByTestId('remote-needs-redis');
    await warning.waitFor();
    await warning.getByText('Remote nodes need REDIS_URL').waitFor();
    expect(await warning.textContent()).toMatch(/cannot be enrolled until the panel runs with REDIS_URL/);
    await page.keyboard.press('Escape');
    await warning.waitFor({ state: 'detached' });
  });

  test('on a phone in Persian, the warning is Persian and fits the screen', async () => {
    const { page, url } = await browserOn(t, { viewport: PHONE, language: 'fa' });
    await page.goto(url('/nodes'));
    await page.getByTestId('new-node').click();
    const warning = page.getByRole('dialog').getByTestId('remote-needs-redis');
    await warning.getByText('نودهای راه دور به REDIS_URL نیاز دارند').waitFor();
    const box = await warning.boundingBox();
    expect(box).not.toBeNull();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(PHONE.width);
    await waitFor(
      'no sideways scroll',
      async () =>
        (await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)) ||
        undefined,
    );
    expect(opened.flatMap((browser) => browser.pageErrors)).toEqual([]);
  });
});
