import { openSettled } from '../support/browser.js';
import { fixtures } from '../support/fixtures.js';
import { startListServer, type ListServer } from '../support/list-server.js';
import { waitFor } from '../support/wait-for.js';
import { webPanel } from '../support/web-panel.js';

/**
 * The Subscriptions tab of Outbounds in a real browser, against a local list server: add with a
 * preview, the hops it made marked in the hops tab, a failed refresh's error, order, delete; and
 * the tab in Persian.
 */
describe('outbound subscriptions in the web panel', () => {
  const { session, url, browserAt } = webPanel();
  const f = fixtures(session);
  let list: ListServer;
  beforeAll(async () => {
    list = await startListServer(
      ['socks5://203.0.113.71:1080#web-sub-a', 'http://203.0.113.72:3128#web-sub-b', 'vmess://nope'].join('\n'),
    );
  });
  afterAll(async () => {
    await list.close();
  });

  test('add with a preview, hops marked, a failed refresh shown, order and delete', async () => {
    expect((await f.call('PATCH', 'settings', { allowPrivateTargets: true })).status).toBe(200);
    const { page } = await browserAt();
    await openSettled(page, url('/outbounds'));
    await page.getByTestId('subscriptions-tab').click();
    for (const name of ['web-first', 'web-second']) {
      await page.getByTestId('new-outbound-sub').click();
      const dialog = page.getByRole('dialog');
      await dialog.getByTestId('outbound-sub-name').fill(name);
      await dialog.getByTestId('outbound-sub-url').fill(list.url);
      if (name === 'web-first') {
        await dialog.getByTestId('preview-outbound-sub').click();
        await dialog.getByTestId('outbound-sub-preview').waitFor();
        expect(await dialog.getByTestId('preview-hop').allTextContents()).toEqual([
          expect.stringContaining('web-sub-a'),
          expect.stringContaining('web-sub-b'),
        ]);
        expect(await dialog.getByTestId('outbound-sub-preview').textContent()).toContain('line 3: vmess://');
      }
      await dialog.getByTestId('outbound-sub-submit').click();
      const row = page.locator(`[data-testid="outbound-sub-row"][data-name="${name}"]`);
      // Made, then fetched at once: its hops counted in its row.
      await waitFor(
        `${name} refreshed`,
        async () => (await row.getByTestId('outbound-sub-count').textContent()) === '2',
      );
    }
    await page.getByTestId('hops-tab').click();
    await page.locator('[data-testid="outbound-row"][data-tag="web-sub-a"]').getByTestId('from-subscription').waitFor();
    await page.locator('[data-testid="outbound-row"][data-tag="web-sub-a-2"]').waitFor();

    await page.getByTestId('subscriptions-tab').click();
    const first = page.locator('[data-testid="outbound-sub-row"][data-name="web-first"]');
    list.status = 503;
    await first.getByTestId('refresh-outbound-sub').click();
    await first.getByTestId('outbound-sub-error').getByText('the server answered 503').waitFor();
    list.status = 200;

    const names = async () => (await f.call('GET', 'outbound-subs')).body.map((sub: { name: string }) => sub.name);
    await page.locator('[data-testid="outbound-sub-row"][data-name="web-second"]').getByTestId('move-sub-up').click();
    await waitFor('web-second moved up', async () => (await names()).join() === 'web-second,web-first');

    await first.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await waitFor('web-first deleted', async () => (await names()).join() === 'web-second');
    expect((await f.call('GET', 'outbounds')).body.map((hop: { tag: string }) => hop.tag)).not.toContain('web-sub-a');
  });

  test('the tab and its texts in Persian', async () => {
    const { page } = await browserAt({ language: 'fa' });
    await openSettled(page, url('/outbounds'));
    const tab = page.getByTestId('subscriptions-tab');
    expect(await tab.textContent()).toBe('اشتراک‌ها');
    await tab.click();
    await page.getByTestId('outbound-subs').getByText('اشتراک نشانی‌ای است').waitFor();
    expect(await page.getByTestId('new-outbound-sub').textContent()).toBe('اشتراک جدید');
  });
});
