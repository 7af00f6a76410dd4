import { openSettled } from '../support/browser.js';
import { fixtures } from '../support/fixtures.js';
import { waitFor } from '../support/wait-for.js';
import { webPanel } from '../support/web-panel.js';

/**
 * The Balancers tab of Outbounds in a real browser: a failover balancer made of two hops in the
 * order chosen, its hops' health and current pick shown, the override select pinning the second
 * hop and clearing; and the tab in Persian.
 */
describe('balancers in the web panel', () => {
  const { session, url, browserAt } = webPanel();
  const f = fixtures(session);

  test('create with hops in order, see the pick, override and clear it, delete', async () => {
    for (const [tag, host] of [
      ['web-hop-a', '203.0.113.81'],
      ['web-hop-b', '203.0.113.82'],
    ])
      expect((await f.call('POST', 'outbounds', { tag, kind: 'socks', address: `${host}:1080` })).status).toBe(201);
    const { page } = await browserAt();
    await openSettled(page, url('/outbounds'));
    await page.getByTestId('balancers-tab').click();
    await page.getByTestId('new-balancer').click();
    const dialog = page.getByRole('dialog');
    await dialog.getByTestId('balancer-tag').fill('web-pool');
    await dialog.locator('.mantine-MultiSelect-input').click();
    await page.getByRole('option', { name: 'web-hop-a' }).click();
    await page.getByRole('option', { name: 'web-hop-b' }).click();
    await dialog.getByTestId('balancer-submit').click();
    await dialog.waitFor({ state: 'detached' });

    const row = page.locator('[data-testid="balancer-row"][data-tag="web-pool"]');
    await waitFor(
      'the pick shown',
      async () => (await row.getByTestId('balancer-current').textContent()) === 'web-hop-a',
    );
    expect(await row.getByTestId('balancer-hop').allTextContents()).toEqual([
      'web-hop-a · not checked',
      'web-hop-b · not checked',
    ]);
    const balancer = () =>
      f.call('GET', 'balancers').then((answer) => (answer.body as { tag: string; overrideId: string | null }[])[0]);

    await row.getByTestId('balancer-override').click();
    await page.getByRole('option', { name: 'web-hop-b' }).click();
    await waitFor(
      'the override pinned',
      async () => (await row.getByTestId('balancer-current').textContent()) === 'web-hop-b',
    );
    expect((await balancer()).overrideId).toEqual(expect.any(String));
    // Pinned to a hop that is then disabled: the tab warns, naming both, until the override is cleared.
    const hopB = ((await f.call('GET', 'outbounds')).body as { id: string; tag: string }[]).find(
      (hop) => hop.tag === 'web-hop-b',
    )!;
    expect((await f.call('PATCH', `outbounds/${hopB.id}`, { enabled: false })).status).toBe(200);
    await page.reload();
    await page.getByTestId('balancers-tab').click();
    const warning = page.locator('[data-testid="balancer-warning"][data-tag="web-pool"]');
    await warning.waitFor();
    expect(await warning.getAttribute('data-code')).toBe('override-hop-disabled');
    expect(await warning.textContent()).toBe(
      'Balancer web-pool is pinned to the disabled hop web-hop-b: no hop carries its traffic. Enable web-hop-b or clear the override.',
    );
    await row.getByTestId('balancer-override').click();
    await page.getByRole('option', { name: 'None (by health)' }).click();
    await waitFor('the override cleared', async () => (await balancer()).overrideId === null);
    await warning.waitFor({ state: 'detached' });

    await row.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await waitFor('the balancer deleted', async () => (await f.call('GET', 'balancers')).body.length === 0);
  });

  test('the tab and its texts in Persian', async () => {
    const { page } = await browserAt({ language: 'fa' });
    await openSettled(page, url('/outbounds'));
    const tab = page.getByTestId('balancers-tab');
    expect(await tab.textContent()).toBe('متعادل‌کننده‌ها');
    await tab.click();
    await page.getByTestId('balancers').getByText('متعادل‌کننده مقصدی برای مسیریابی است').waitFor();
    expect(await page.getByTestId('new-balancer').textContent()).toBe('متعادل‌کنندهٔ تازه');
  });
});
