import type { Page } from 'playwright-core';
import { assertWebBuilt, signedInBrowser, type TestBrowser } from '../support/browser.js';
import { fixtures, signedInPanel } from '../support/fixtures.js';
import { OWNER } from '../support/test-panel.js';
import { waitFor } from '../support/wait-for.js';

/**
 * The Hosts page in a real browser (issue 26 item 5): a host group made and tied to a client
 * group, hosts selected and tagged and moved into it in bulk, a host moved down, and a check's
 * answer; then the same page in Persian. Every address is an IP literal: the check asks no resolver.
 */
const session = signedInPanel();
const f = fixtures(session);
const url = (path: string) => `${session().t.panel.origin}${session().t.config.basePath}${path}`;

describe('the Hosts page', () => {
  const opened: TestBrowser[] = [];
  let page: Page;
  let ids: { first: string; second: string };

  beforeAll(async () => {
    assertWebBuilt();
    const node = await f.createNode({ name: 'web-hosts', address: '127.0.0.1' });
    const iface = await f.createInterface({ nodeId: node.id, endpointHost: '127.0.0.1' });
    const first = await f.createHost({ interfaceId: iface.id, name: 'alpha', address: '127.0.0.1' });
    const second = await f.createHost({ interfaceId: iface.id, name: 'bravo', address: '192.0.2.44' });
    ids = { first: first.id, second: second.id };
    const browser = await signedInBrowser(url, OWNER);
    opened.push(browser);
    page = browser.page;
  });
  afterAll(async () => {
    for (const browser of opened) await browser.close();
  });
  afterEach(() => {
    for (const browser of opened) expect(browser.pageErrors).toEqual([]);
  });

  const rows = (sql: string) => session().t.query<Record<string, unknown>>(sql);

  test('a group tied to a client group, hosts tagged and grouped in bulk, reordered, checked', async () => {
    await page.goto(url('/hosts'));
    await page.getByTestId('hosts-table').getByText('alpha').waitFor();

    await page.getByTestId('new-host-group').click();
    await page.getByTestId('host-group-name').fill('Premium');
    await page.getByTestId('host-group-client-groups').fill('premium');
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByTestId('host-groups-table').getByRole('cell', { name: 'Premium', exact: true }).waitFor();
    expect(await rows('select name, client_groups from host_groups')).toEqual([
      { name: 'Premium', client_groups: ['premium'] },
    ]);

    await page.getByRole('checkbox', { name: 'Select alpha' }).check();
    await page.getByRole('checkbox', { name: 'Select bravo' }).check();
    await page.getByTestId('host-bulk').getByText('2 selected').waitFor();
    await page.getByTestId('host-bulk-tags').fill('cdn');
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Add tags' }).click();
    await waitFor('the tags', async () => (await rows(`select id from hosts where tags @> '{cdn}'`)).length === 2);

    await page.getByRole('checkbox', { name: 'Select every host' }).check();
    await page.getByTestId('host-bulk-group').click();
    await page.getByRole('option', { name: 'Premium' }).click();
    await waitFor(
      'the hosts in the group',
      async () => (await rows(`select id from hosts where group_id is not null`)).length === 2,
    );

    await page.getByRole('button', { name: 'Move alpha down' }).click();
    await waitFor('the new order', async () => {
      const order = await rows('select id, position from hosts order by position');
      return order.length === 2 && order[0].id === ids.second && order[1].id === ids.first;
    });

    await page
      .getByTestId('hosts-table')
      .getByRole('row', { name: /alpha/ })
      .getByRole('button', { name: 'Check' })
      .click();
    const result = page.getByTestId('host-check-result');
    await result.getByText('The address resolves to the node web-hosts.').waitFor();
    await result.getByText('127.0.0.1').first().waitFor();
  });

  test('in Persian', async () => {
    const browser = await signedInBrowser(url, OWNER, { language: 'fa' });
    opened.push(browser);
    await browser.page.goto(url('/hosts'));
    await browser.page.getByText('گروه‌های میزبان').waitFor();
    await browser.page.getByTestId('host-groups-table').getByRole('cell', { name: 'Premium', exact: true }).waitFor();
    await browser.page.getByText('گروه میزبان جدید').waitFor();
  });
});
