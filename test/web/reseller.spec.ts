import type { Page } from 'playwright-core';
import { assertWebBuilt, launchBrowser, type TestBrowser } from '../support/browser.js';
import { fixtures, signedInPanel, type TestUser } from '../support/fixtures.js';
import { OWNER } from '../support/test-panel.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Resellers in a real browser against a real panel serving dist/web (docs/operators.md,
 * "Resellers"): the owner sets a reseller's ceilings on the Operators page and sees their pool;
 * the reseller's panel shows their own clients only, the pages they may use, and the room left,
 * and acts on their own clients in bulk.
 */
const session = signedInPanel();
const f = fixtures(session);
const url = (path: string) => `${session().t.panel.origin}${session().t.config.basePath}${path}`;
const GB = 1024 ** 3;

async function signInAs(page: Page, username: string, password: string): Promise<void> {
  await page.goto(url('/sign-in'));
  await page.getByLabel('Username').fill(username);
  await page.getByRole('textbox', { name: 'Password' }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
}

describe('resellers in the web panel', () => {
  let browser: TestBrowser;
  let page: Page;
  let reseller: TestUser;
  let iface: { id: string };

  beforeAll(async () => {
    assertWebBuilt();
    reseller = await f.createUser('reseller');
    iface = await f.createInterface();
    await f.createClient({ name: 'owners-own-client', interfaceIds: [iface.id] });
    const { t } = session();
    const made = await t.call('POST', 'clients', {
      token: reseller.token,
      body: { name: 'resellers-client', interfaceIds: [iface.id] },
    });
    expect(made.status).toBe(201);
    browser = await launchBrowser();
    page = browser.page;
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(() => {
    expect(browser.pageErrors).toEqual([]);
  });

  test('the owner sets a reseller’s ceilings on the Operators page and sees their pool', async () => {
    await signInAs(page, OWNER.username, OWNER.password);
    await page.getByRole('link', { name: 'Operators' }).click();
    const row = page.getByTestId(`operator-${reseller.username}`);
    await row.getByText('Reseller', { exact: true }).waitFor();
    await row.getByRole('button', { name: 'Edit' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByTestId('operator-ceilings').waitFor();
    await dialog.getByTestId('ceiling-max-clients').fill('3');
    await dialog.getByTestId('ceiling-pool').fill('50');
    await dialog.getByTestId('ceiling-expiry').fill('30');
    await dialog.getByTestId('ceiling-quota').fill('10');
    // Sizes are GiB (1024³ bytes), and the labels say so.
    await dialog.getByText('Traffic pool (GiB)').waitFor();
    await dialog.getByText('Largest quota per client (GiB)').waitFor();
    // The nodes ceiling: the interface's node, picked by its name.
    const [node] = await session().t.query<{ id: string; name: string }>(
      'select n.id, n.name from nodes n join interfaces i on i.node_id = n.id where i.id = $1',
      [iface.id],
    );
    await dialog
      .locator('.mantine-MultiSelect-input')
      .filter({ has: page.getByTestId('ceiling-nodes') })
      .click();
    await page.getByRole('option', { name: node.name, exact: true }).click();
    await dialog.getByTestId('save-operator').click();
    await dialog.waitFor({ state: 'detached' });
    const stored = await session().t.query(
      'select max_clients, traffic_pool_bytes, max_expiry_days, max_quota_bytes, node_ids from reseller_limits where user_id = $1',
      [reseller.id],
    );
    expect(stored).toEqual([
      {
        max_clients: 3,
        traffic_pool_bytes: String(50 * GB),
        max_expiry_days: 30,
        max_quota_bytes: String(10 * GB),
        node_ids: [node.id],
      },
    ]);
    await waitFor('the pool shown on the operator’s row', async () =>
      ((await row.getByTestId(`pool-${reseller.username}`).textContent()) ?? '').includes('50'),
    );
  });

  test('a reseller sees their own clients, only the pages they may use, and the room left', async () => {
    await page.context().clearCookies();
    await signInAs(page, reseller.username, reseller.password);
    // The menu: overview, clients and the API listing; nothing of the panel's.
    const nav = page.getByRole('navigation');
    await nav.getByRole('link', { name: 'Clients' }).waitFor();
    const links = await nav.getByRole('link').allTextContents();
    expect(links).toEqual(['Overview', 'Clients', 'API']);
    // The overview: their one client, and the room card.
    await page.getByTestId('my-clients').getByText('1').waitFor();
    const room = page.getByTestId('reseller-room');
    await room.getByTestId('room-clients').getByText('2 of 3').waitFor();
    await room.getByTestId('room-expiry').getByText('30 days').waitFor();
    // The clients page: their client, not the owner's; the card is there too.
    await nav.getByRole('link', { name: 'Clients' }).click();
    await page.getByText('resellers-client').waitFor();
    await page.getByTestId('reseller-room').waitFor();
    expect(await page.getByText('owners-own-client').count()).toBe(0);
    // Bulk actions and the import are theirs too, on their own clients: everything selected is theirs.
    await page.getByTestId('clients-import').waitFor();
    await page.getByRole('checkbox', { name: 'Select resellers-client' }).check();
    await page.getByTestId('bulk-actions').click();
    await page.getByTestId('bulk-disable').click();
    await page.getByText('Disable: 1 of 1 clients changed').waitFor();
    expect(
      await session().t.query('select name, status from clients where name in ($1, $2) order by name', [
        'owners-own-client',
        'resellers-client',
      ]),
    ).toEqual([
      { name: 'owners-own-client', status: 'active' },
      { name: 'resellers-client', status: 'disabled' },
    ]);
  });
});
