import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import type { PeerCounters } from '../../libs/contracts/agent-link.js';
import { UsageService } from '../../apps/controller/src/clients/usage.service.js';
import { PHONE } from '../support/browser.js';
import { fixtures, type ClientView, type InterfaceView, type NodeView } from '../support/fixtures.js';
import { webPanel } from '../support/web-panel.js';
import { waitFor } from '../support/wait-for.js';
import { unzip } from '../support/zip.js';

/**
 * What an operator expects of a client in a real browser (Debian's Chromium through
 * playwright-core): online state and last handshake in the list (from the agents' counters, fed
 * through the service the agent link calls), ordering by a column header, the drawer's interfaces
 * with their public keys, a device's addresses and the reset cycle, a config copied, and a
 * device's profiles as one download.
 */
// What the callbacks given to page.evaluate() see: they run in the page, not in Node.
declare const document: any;
declare const navigator: any;

describe('a client’s details in the web panel', () => {
  const { session, url, browserAt } = webPanel();
  const f = fixtures(session);
  let node: NodeView;
  let hosted: InterfaceView;
  let plain: InterfaceView;
  let online: ClientView;
  let seen: ClientView;

  /** The rows of the clients table, by the name each shows. */
  const rowNames = (page: Page) =>
    page
      .locator('[data-testid="clients-table"] tbody tr')
      .evaluateAll((rows) => rows.map((row: any) => row.getAttribute('data-row') as string));
  const param = (page: Page, name: string) => new URL(page.url()).searchParams.get(name);
  const headerSort = (page: Page, name: string) =>
    page.getByRole('columnheader', { name, exact: true }).getAttribute('aria-sort');

  beforeAll(async () => {
    ({ node, iface: hosted } = await f.createNodeWithInterface());
    plain = await f.createInterface({ nodeId: node.id });
    // Two hosts: each device on `hosted` has two profiles; on `plain`, one (its own endpoint).
    await f.createHost({ interfaceId: hosted.id, name: 'cdn', address: 'cdn.example.net', port: 443 });
    await f.createHost({ interfaceId: hosted.id, name: 'direct', address: '203.0.113.7' });
    online = await f.createClient({
      name: 'detail-online',
      interfaceIds: [hosted.id],
      deviceLimit: 2,
      deviceNames: ['phone', 'laptop'],
      resetCycle: 'monthly',
    });
    seen = await f.createClient({ name: 'detail-seen', interfaceIds: [plain.id] });
    await f.createClient({ name: 'detail-never', interfaceIds: [plain.id] });

    // The agent's counters: the phone shook hands seconds ago, detail-seen two hours ago.
    const keyOf = async (client: ClientView, device: string) =>
      (await f.accountsOf(client.id)).find((row) => row.device_name === device)!.public_key as string;
    const peer = (iface: InterfaceView, publicKey: string, bytes: number, at: number): PeerCounters => ({
      interface: iface.name,
      publicKey,
      rxBytes: bytes,
      txBytes: bytes,
      lastHandshake: at,
      endpoint: '198.51.100.7:40000',
    });
    await session()
      .t.panel.app.get(UsageService)
      .recordCounters(node.id, 1, [
        peer(hosted, await keyOf(online, 'phone'), 5_000_000, Date.now() - 5_000),
        peer(plain, await keyOf(seen, 'device-1'), 1_000, Date.now() - 2 * 3600_000),
      ]);
    const listed = (await f.call('GET', 'clients?search=detail-')).body.items as ClientView[];
    expect(listed.map((client) => [client.name, client.onlineNow, client.lastHandshake !== null])).toEqual([
      ['detail-never', false, false],
      ['detail-seen', false, true],
      ['detail-online', true, true],
    ]);
  });

  test('the list says who is online and when the others last shook hands; a header click orders it', async () => {
    const { page } = await browserAt();
    await page.goto(url('/clients?search=detail-'));
    await waitFor('the three clients', async () => (await rowNames(page)).length === 3);
    const stateOf = (name: string) =>
      page.locator(`[data-testid="clients-table"] tr[data-row="${name}"] [data-online]`).textContent();
    expect(await stateOf('detail-online')).toBe('online');
    expect(await stateOf('detail-seen')).toBe('2 hours ago');
    expect(await stateOf('detail-never')).toBe('never connected');
    expect(await rowNames(page)).toEqual(['detail-never', 'detail-seen', 'detail-online']);
    expect([await headerSort(page, 'Name'), await headerSort(page, 'Usage')]).toEqual(['none', 'none']);

    // Name: A to Z, in the address (so a reload keeps it), marked on its header.
    await page.getByRole('button', { name: 'Name', exact: true }).click();
    await waitFor('by name', async () => (await headerSort(page, 'Name')) === 'ascending');
    expect(param(page, 'sort')).toBe('name');
    await waitFor(
      'the rows by name',
      async () => (await rowNames(page)).join() === 'detail-never,detail-online,detail-seen',
    );
    await page.reload();
    await waitFor('by name after a reload', async () => (await headerSort(page, 'Name')) === 'ascending');
    expect(await page.getByRole('combobox', { name: 'Order' }).inputValue()).toBe('By name');

    // Usage: most traffic first; Name is no longer the order.
    await page.getByRole('button', { name: 'Usage', exact: true }).click();
    await waitFor('by traffic', async () => param(page, 'sort') === 'traffic');
    await waitFor(
      'the rows by traffic',
      async () => (await rowNames(page)).join() === 'detail-online,detail-seen,detail-never',
    );
    expect([await headerSort(page, 'Usage'), await headerSort(page, 'Name')]).toEqual(['descending', 'none']);

    // A second click goes back to the default order (newest first), and Back to the one before.
    await page.getByRole('button', { name: 'Usage', exact: true }).click();
    await waitFor('the default order', async () => param(page, 'sort') === null && param(page, 'search') !== null);
    await waitFor(
      'newest first',
      async () => (await rowNames(page)).join() === 'detail-never,detail-seen,detail-online',
    );
    expect(await headerSort(page, 'Usage')).toBe('none');
    await page.goBack();
    await waitFor('Back: by traffic', async () => (await headerSort(page, 'Usage')) === 'descending');

    // Expiry by keyboard: the header is a button.
    await page.getByRole('button', { name: 'Expires', exact: true }).focus();
    await page.keyboard.press('Enter');
    await waitFor('by expiry', async () => (await headerSort(page, 'Expires')) === 'ascending');
    expect(param(page, 'sort')).toBe('expiry');
  });

  test('the drawer: reset cycle, interfaces with their public keys, each device’s addresses and state', async () => {
    const { page } = await browserAt();
    await page.goto(url(`/clients/${online.id}`));
    await page.getByTestId('client-reset-cycle').getByText('Every month').waitFor();

    const iface = page.getByTestId('client-interface');
    expect(await iface.count()).toBe(1);
    expect(await iface.locator('p').first().textContent()).toBe(`${hosted.name} · ${node.name}`);
    expect(await iface.locator('code').textContent()).toBe(hosted.publicKey);
    await page.getByRole('button', { name: `Copy the public key of ${hosted.name} · ${node.name}` }).click();
    await waitFor(
      'the key copied',
      async () => (await page.evaluate(() => navigator.clipboard.readText())) === hosted.publicKey,
    );

    const accounts = await f.accountsOf(online.id);
    for (const device of ['phone', 'laptop']) {
      const card = page.locator(`[data-testid="device"][data-device="${device}"]`);
      const ip = accounts.find((row) => row.device_name === device)!.ip as string;
      expect(await card.getByTestId('device-address').allTextContents()).toEqual([
        `${ip} · ${hosted.name} · ${node.name}`,
      ]);
    }
    expect(await page.locator('[data-device="phone"] [data-online]').textContent()).toBe('online');
    expect(await page.locator('[data-device="laptop"] [data-online]').textContent()).toBe('never connected');
  });

  test('a config is copied from the configs view', async () => {
    const { page } = await browserAt();
    await page.goto(url(`/clients/${seen.id}`));
    await page.getByTestId('open-configs').click();
    const [profile] = (await f.call('GET', `clients/${seen.id}/configs`)).body.devices[0].profiles as {
      filename: string;
      body: string;
    }[];
    await page.getByRole('button', { name: `Copy ${profile.filename}` }).click();
    await waitFor(
      'the config copied',
      async () => (await page.evaluate(() => navigator.clipboard.readText())) === profile.body,
    );
  });

  test('a device’s profiles are one download: the zip of several, or the one file', async () => {
    const browser = await browserAt();
    const { page } = browser;
    const downloads: string[] = [];
    page.on('download', (download) => downloads.push(download.suggestedFilename()));
    await page.goto(url(`/clients/${online.id}`));
    const phone = online.devices.find((device) => device.name === 'phone')!;
    const [zip] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('[data-device="phone"]').getByTestId('device-profiles').click(),
    ]);
    expect(zip.suggestedFilename()).toBe('detail-online-phone-profiles.zip');
    const json = (await f.call('GET', `devices/${phone.id}/profiles`)).body as {
      filename: string;
      body: string;
    }[];
    expect(json).toHaveLength(2);
    const entries = unzip(readFileSync((await zip.path())!));
    expect(entries.map((entry) => entry.body).sort()).toEqual(json.map((profile) => profile.body).sort());
    expect(downloads).toEqual(['detail-online-phone-profiles.zip']);
    const asked = browser.requests.filter((request) => request.url.includes(`/api/devices/${phone.id}/profiles`));
    expect(asked.map((request) => new URL(request.url).search)).toEqual(['', '?format=zip']);

    // One profile: the .conf itself, no zip.
    await page.goto(url(`/clients/${seen.id}`));
    const [single] = await Promise.all([page.waitForEvent('download'), page.getByTestId('device-profiles').click()]);
    const [profile] = (await f.call('GET', `devices/${seen.devices[0].id}/profiles`)).body as {
      filename: string;
      body: string;
    }[];
    expect(single.suggestedFilename()).toBe(profile.filename);
    expect(readFileSync((await single.path())!, 'utf8')).toBe(profile.body);
  });

  test('on a phone in Persian: the online state on the cards, the drawer’s key inside the screen', async () => {
    const { page } = await browserAt({ viewport: PHONE, language: 'fa' });
    await page.goto(url('/clients?search=detail-online'));
    await page
      .locator('[data-testid="list-card"][data-row="detail-online"] [data-online]')
      .getByText('آنلاین')
      .waitFor();
    await page.goto(url(`/clients/${online.id}`));
    await page.getByTestId('client-interface').locator('code').waitFor();
    await page.getByTestId('client-reset-cycle').getByText('هر ماه').waitFor();
    const widths = await page.evaluate(() => {
      const drawer = document.querySelector('.mantine-Drawer-content');
      return {
        page: [document.documentElement.scrollWidth, document.documentElement.clientWidth],
        drawer: [drawer.scrollWidth, drawer.clientWidth],
      };
    });
    expect(widths.page[0]).toBeLessThanOrEqual(widths.page[1]);
    expect(widths.drawer[0]).toBeLessThanOrEqual(widths.drawer[1]);
    expect(await page.locator('[data-device="laptop"] [data-online]').textContent()).toBe('هرگز وصل نشده');
  });
});
