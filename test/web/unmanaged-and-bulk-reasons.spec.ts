import type { Page } from 'playwright-core';
import { assertWebBuilt, signedInBrowser, type TestBrowser } from '../support/browser.js';
import { fixtures, signedInPanel } from '../support/fixtures.js';
import { OWNER } from '../support/test-panel.js';
import { waitFor } from '../support/wait-for.js';

/**
 * What a new-user trial found (issue 21 item 7), in a real browser: with WARREN_LOCAL_AGENT=off
 * (as every test panel runs) the local node is unmanaged, so its interfaces say "not applied:
 * node unmanaged" (not "applying" for ever), the Nodes page says no agent applies changes there
 * (not "Revision 0 of 5 applied"), and the new-interface dialog warns before saving on an
 * unmanaged node, on one whose agent is not linked, and under a loopback endpoint; a bulk extend
 * of clients that never expire says how many it skipped and why.
 */
const session = signedInPanel();
const f = fixtures(session);
const url = (path: string) => `${session().t.panel.origin}${session().t.config.basePath}${path}`;

describe('an unmanaged node and what bulk jobs skip', () => {
  let browser: TestBrowser;
  let page: Page;

  beforeAll(async () => {
    assertWebBuilt();
    browser = await signedInBrowser(url, OWNER);
    page = browser.page;
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(() => {
    expect(browser.pageErrors).toEqual([]);
  });

  test('the local node unmanaged: its interface is not applied, its sync says why', async () => {
    const iface = await f.createInterface({ name: 'wg-unmanaged' });
    await page.goto(url('/interfaces'));
    const row = page.getByRole('row').filter({ hasText: 'wg-unmanaged' });
    await row.getByText('not applied: node unmanaged').waitFor();
    expect(await row.getByText('applying', { exact: true }).count()).toBe(0);

    const local = (await f.call('GET', `nodes/${iface.nodeId}`)).body as { name: string; desiredRevision: number };
    expect(local.desiredRevision).toBeGreaterThan(0);
    await page.goto(url('/nodes'));
    const node = page.getByRole('row').filter({ hasText: local.name });
    await node.getByText('No agent applies changes here', { exact: false }).waitFor();
    expect(await node.getByText(/Revision \d+ of \d+ applied/).count()).toBe(0);
  });

  test('the new-interface dialog warns on an unmanaged node, an unlinked one, and a loopback endpoint', async () => {
    await f.createNode({ name: 'unlinked', address: '198.51.100.30' });
    await page.goto(url('/interfaces'));
    await page.getByTestId('new-interface').click();
    const dialog = page.getByRole('dialog');
    const warning = dialog.getByTestId('interface-node-warning');
    // No node chosen: the local one, unmanaged here.
    await warning.getByText('the interface will be saved but never applied', { exact: false }).waitFor();
    // The panel was reached on 127.0.0.1, so that is the endpoint offered: clients elsewhere cannot reach it.
    expect(await dialog.locator('input[name="endpointHost"]').inputValue()).toBe(
      new URL(session().t.panel.origin).hostname,
    );
    await dialog.getByTestId('endpoint-loopback').waitFor();

    await dialog.getByRole('combobox', { name: 'Node' }).click();
    await page.getByRole('option', { name: 'unlinked' }).click();
    await warning.getByText('applied only once it is', { exact: false }).waitFor();
    // The node's own address is reachable: no hint.
    await dialog.getByTestId('endpoint-loopback').waitFor({ state: 'detached' });
    await dialog.locator('input[name="endpointHost"]').fill('localhost');
    await dialog.getByTestId('endpoint-loopback').waitFor();
    await dialog.locator('input[name="endpointHost"]').fill('::1');
    await dialog.getByTestId('endpoint-loopback').waitFor();
    await dialog.locator('input[name="endpointHost"]').fill('vpn.example.com');
    await dialog.getByTestId('endpoint-loopback').waitFor({ state: 'detached' });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  test('extending clients that never expire: said beforehand, and the toast says how many were skipped and why', async () => {
    const iface = await f.createInterface();
    const clients = [
      await f.createClient({ name: 'never-a', interfaceIds: [iface.id], groups: ['never-web'] }),
      await f.createClient({ name: 'never-b', interfaceIds: [iface.id], groups: ['never-web'] }),
    ];
    await page.goto(url('/clients?group=never-web&sort=name'));
    await page.getByTestId('clients-table').getByText('never-a').waitFor();
    await page.getByRole('checkbox', { name: 'Select never-a' }).check();
    await page.getByRole('checkbox', { name: 'Select never-b' }).check();
    await page.getByTestId('bulk-actions').click();
    await page.getByTestId('bulk-extend').click();
    await page
      .getByTestId('extend-skips-never')
      .getByText('Clients without an expiry are skipped unless', { exact: false })
      .waitFor();
    await page.getByTestId('run-extend').click();
    await page
      .getByText('Extend expiry: 0 of 2 clients changed · 2 skipped: they never expire', { exact: false })
      .waitFor();
    for (const client of clients)
      expect(((await f.call('GET', `clients/${client.id}`)).body as { expiresAt: string | null }).expiresAt).toBeNull();

    // Counted from now, they get one.
    await page.getByRole('checkbox', { name: 'Select never-a' }).check();
    await page.getByTestId('bulk-actions').click();
    await page.getByTestId('bulk-extend').click();
    await page.getByTestId('extend-from-now').check();
    await page.getByTestId('run-extend').click();
    await page.getByText('Extend expiry: 1 of 1 clients changed', { exact: false }).waitFor();
    await waitFor(
      'never-a to have an expiry',
      async () =>
        ((await f.call('GET', `clients/${clients[0]!.id}`)).body as { expiresAt: string | null }).expiresAt !== null,
    );
  });
});
