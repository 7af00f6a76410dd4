import type { PeerCounters } from '../../libs/contracts/agent-link.js';
import { UsageService } from '../../apps/controller/src/clients/usage.service.js';
import { PHONE } from '../support/browser.js';
import { fixtures, type ClientView } from '../support/fixtures.js';
import { webPanel } from '../support/web-panel.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Usage history and live traffic in a real browser (Debian's Chromium through playwright-core),
 * fed through the service the agent link calls: the current rate beside the online state in the
 * list and the drawer, the client's traffic chart with its range picker, the overview's traffic
 * chart, and all of it in Persian digits.
 */
describe('usage history and current rate in the web panel', () => {
  const { session, url, browserAt } = webPanel();
  const f = fixtures(session);
  let client: ClientView;

  beforeAll(async () => {
    const { node, iface } = await f.createNodeWithInterface();
    client = await f.createClient({ name: 'usage-chart', interfaceIds: [iface.id] });
    const [account] = await f.accountsOf(client.id);
    const peer: PeerCounters = {
      interface: iface.name,
      publicKey: account.public_key as string,
      rxBytes: 6_144_000,
      txBytes: 61_440_000,
      lastHandshake: Date.now() - 5_000,
      endpoint: '198.51.100.7:40000',
    };
    // Ten minutes between the agent's two readings (the longest that still makes a rate): 100
    // KiB/s down, 10 KiB/s up, holding for fifteen minutes (the whole file, on a busy machine).
    const at = Date.now();
    await session()
      .t.panel.app.get(UsageService)
      .recordCounters(node.id, 1, [peer], new Date(), { at, since: at - 600_000 });
  });

  test('the list shows who is online with the current rate', async () => {
    const { page } = await browserAt();
    await page.goto(url('/clients?search=usage-chart'));
    const row = page.locator('[data-testid="clients-table"] tr[data-row="usage-chart"]');
    await row.locator('[data-online]').getByText('online').waitFor();
    expect(await row.getByTestId('current-rate').textContent()).toBe('↓ 100.0\u00a0KiB/s ↑ 10.0\u00a0KiB/s');
  });

  test('the drawer charts the client’s traffic over the range picked', async () => {
    const browser = await browserAt();
    const { page } = browser;
    await page.goto(url(`/clients/${client.id}`));
    const drawer = page.getByRole('dialog');
    await drawer.getByTestId('current-rate').getByText('↓ 100.0 KiB/s ↑ 10.0 KiB/s').waitFor();
    const chart = drawer.getByTestId('usage-chart');
    await chart.getByTestId('usage-total').getByText('↓ 58.6 MiB · ↑ 5.9 MiB in this range').waitFor();
    await chart.locator('[data-testid="chart"] canvas').waitFor();

    await chart.getByText('7d', { exact: true }).click();
    await waitFor('the 7-day range asked for', async () =>
      browser.requests.some((request) => request.url.includes(`/api/clients/${client.id}/usage?range=7d`)),
    );
    await chart.getByTestId('usage-total').getByText('↓ 58.6 MiB · ↑ 5.9 MiB in this range').waitFor();
    const answer = (await f.call('GET', `clients/${client.id}/usage?range=7d`)).body;
    expect([answer.points, answer.downBytes, answer.upBytes]).toEqual([56, 61_440_000, 6_144_000]);
  });

  test('the overview charts every client’s traffic', async () => {
    const { page } = await browserAt();
    await page.goto(url('/'));
    const chart = page.getByTestId('usage-chart');
    await chart.locator('[data-testid="chart"] canvas').waitFor();
    await waitFor('the total of the range', async () =>
      /^↓ .+ · ↑ .+ in this range$/.test((await chart.getByTestId('usage-total').textContent()) ?? ''),
    );
    const total = (await f.call('GET', 'overview/usage?range=24h')).body;
    expect(total.downBytes).toBeGreaterThanOrEqual(61_440_000);
  });

  test('in Persian on a phone: the ranges, totals and rate in Persian digits', async () => {
    const { page } = await browserAt({ viewport: PHONE, language: 'fa' });
    await page.goto(url(`/clients/${client.id}`));
    const chart = page.getByRole('dialog').getByTestId('usage-chart');
    // Persian sizes name their binary unit in Persian.
    await waitFor(
      'the total in Persian',
      async () =>
        ((await chart.getByTestId('usage-total').textContent()) ?? '') ===
        '↓ ۵۸٫۶\u00a0مگابایت · ↑ ۵٫۹\u00a0مگابایت در این بازه',
    );
    await chart.getByText('۷ روز', { exact: true }).waitFor();
    expect(await page.getByRole('dialog').getByTestId('current-rate').textContent()).toBe(
      '↓ ۱۰۰٫۰\u00a0کیلوبایت/ثانیه ↑ ۱۰٫۰\u00a0کیلوبایت/ثانیه',
    );
  });
});
