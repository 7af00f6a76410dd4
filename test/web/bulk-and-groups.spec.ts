import type { Page } from 'playwright-core';
import { assertWebBuilt, signedInBrowser, type TestBrowser } from '../support/browser.js';
import { fixtures, signedInPanel } from '../support/fixtures.js';
import { OWNER } from '../support/test-panel.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Bulk actions and groups in a real browser (issue 23 item 9): rows selected on the clients page
 * (a page, or every client the filter matches), an action run as a job with its progress bar and
 * a toast with what it did; the Groups page makes, renames and deletes a group.
 */
const session = signedInPanel();
const f = fixtures(session);
const url = (path: string) => `${session().t.panel.origin}${session().t.config.basePath}${path}`;

describe('bulk actions and groups', () => {
  let browser: TestBrowser;
  let page: Page;
  let interfaceId: string;

  beforeAll(async () => {
    assertWebBuilt();
    browser = await signedInBrowser(url, OWNER);
    page = browser.page;
    interfaceId = (await f.createInterface()).id;
    for (let i = 0; i < 30; i++)
      await f.createClient({
        name: `bulk-${String(i).padStart(2, '0')}`,
        interfaceIds: [interfaceId],
        groups: ['web-bulk'],
        expiresAt: '2030-01-01T00:00:00Z',
      });
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(() => {
    expect(browser.pageErrors).toEqual([]);
  });

  const statuses = async () =>
    session().t.query<{ status: string; n: number }>(
      `select status, count(*)::int as n from clients where groups @> '{web-bulk}' group by status order by status`,
    );

  test('two rows selected and disabled: a job, its toast, the list updated', async () => {
    await page.goto(url('/clients?group=web-bulk&sort=name'));
    await page.getByTestId('clients-table').getByText('bulk-00').waitFor();
    await page.getByRole('checkbox', { name: 'Select bulk-00' }).check();
    await page.getByRole('checkbox', { name: 'Select bulk-01' }).check();
    await page.getByTestId('bulk-count').getByText('2 selected').waitFor();
    await page.getByTestId('bulk-actions').click();
    await page.getByTestId('bulk-disable').click();
    await page.getByText('Disable: 2 of 2 clients changed').waitFor();
    expect(await statuses()).toEqual([
      { status: 'active', n: 28 },
      { status: 'disabled', n: 2 },
    ]);
    // The selection is cleared once the job is done; the drawer did not open from the box clicks.
    await waitFor('the bar to go', async () => (await page.getByTestId('bulk-bar').count()) === 0);
    expect(page.url()).not.toMatch(/\/clients\/[0-9a-f-]{36}/);
  });

  test('Reset traffic on two rows asks first (how many, usage to 0), then zeroes only them', async () => {
    await session().t.query(
      `update clients set used_bytes = 5368709120 where name in ('bulk-02', 'bulk-03', 'bulk-04')`,
    );
    const used = async () =>
      session().t.query<{ name: string; used: string }>(
        `select name, used_bytes::text as used from clients where name in ('bulk-02', 'bulk-03', 'bulk-04') order by name`,
      );
    await page.goto(url('/clients?group=web-bulk&sort=name'));
    await page.getByTestId('clients-table').getByText('bulk-02').waitFor();
    await page.getByRole('checkbox', { name: 'Select bulk-02' }).check();
    await page.getByRole('checkbox', { name: 'Select bulk-03' }).check();
    await page.getByTestId('bulk-count').getByText('2 selected').waitFor();
    await page.getByTestId('bulk-actions').click();
    await page.getByTestId('bulk-reset').click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Reset the traffic of 2 clients? Their usage goes to 0').waitFor();
    // Cancel leaves every counter as it was.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await waitFor('the question to close', async () => (await page.getByRole('dialog').count()) === 0);
    expect((await used()).map((row) => row.used)).toEqual(['5368709120', '5368709120', '5368709120']);
    await page.getByTestId('bulk-actions').click();
    await page.getByTestId('bulk-reset').click();
    await page.getByRole('dialog').getByTestId('confirm').click();
    await page.getByText('Reset traffic: 2 of 2 clients changed').waitFor();
    expect(await used()).toEqual([
      { name: 'bulk-02', used: '0' },
      { name: 'bulk-03', used: '0' },
      { name: 'bulk-04', used: '5368709120' },
    ]);
  });

  test('all 30 matching the filter selected and extended by 10 days', async () => {
    await page.goto(url('/clients?group=web-bulk&sort=name'));
    await page.getByTestId('clients-table').getByText('bulk-00').waitFor();
    await page.getByTestId('select-page').check();
    await page.getByTestId('select-all-matching').click();
    await page.getByText('All 30 clients matching the filter are selected').waitFor();
    await page.getByTestId('bulk-actions').click();
    await page.getByTestId('bulk-extend').click();
    await page.getByTestId('extend-days').fill('10');
    await page.getByTestId('run-extend').click();
    await page.getByText('of 30 clients changed').waitFor();
    const expiries = await session().t.query<{ expiry: string; n: number }>(
      `select to_char(expires_at at time zone 'UTC', 'YYYY-MM-DD') as expiry, count(*)::int as n
         from clients where groups @> '{web-bulk}' group by 1`,
    );
    expect(expiries).toEqual([{ expiry: '2030-01-11', n: 30 }]);
  });

  test('the Groups page makes a group with defaults, renames it (members follow) and deletes it', async () => {
    await page.goto(url('/groups'));
    await page.getByTestId('group-web-bulk').waitFor();
    await page.getByTestId('group-web-bulk').getByTestId('members').getByText('30').waitFor();
    await page.getByTestId('new-group').click();
    await page.getByTestId('group-name').fill('trial');
    await page.getByTestId('group-expiry-days').fill('7');
    await page.getByTestId('save-group').click();
    await page.getByTestId('group-trial').waitFor();
    expect(await session().t.query('select name, expiry_days from client_groups')).toEqual([
      { name: 'trial', expiry_days: 7 },
    ]);
    await page.getByTestId('group-web-bulk').getByTestId('rename-group').click();
    await page.getByTestId('group-new-name').fill('web-renamed');
    await page.getByTestId('save-rename').click();
    await page.getByTestId('group-web-renamed').waitFor();
    expect(await session().t.query(`select count(*)::int as n from clients where groups @> '{web-renamed}'`)).toEqual([
      { n: 30 },
    ]);
    await page.getByTestId('group-trial').getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await waitFor('the group to go', async () => (await page.getByTestId('group-trial').count()) === 0);
    expect(await session().t.query('select name from client_groups')).toEqual([]);
  });
  test('a job over 20,000 clients shows its progress bar until it ends', async () => {
    // Seeded in SQL: creating them is not what is tested, and a job this size runs for seconds.
    await session().t.query(
      `insert into clients (id, name, note, groups, quota_bytes, used_bytes, up_bytes, down_bytes, expires_at, device_limit,
                            rate_bits_per_sec, reset_cycle, start_on_first_use, duration_seconds, status, sub_id, owner_id, created_at, updated_at)
       select gen_random_uuid(), 'big-' || n, '', '{web-big}', 0, 0, 0, 0, timestamptz '2030-01-01T00:00:00Z', 1, 0, 'none',
              false, 0, 'active', md5(random()::text || n),
              (select id from users where role = 'owner' order by created_at limit 1), now(), now()
         from generate_series(1, 20000) n`,
    );
    await page.goto(url('/clients?group=web-big&sort=name'));
    // The page's rows first: ticked before they arrive, the box is reset when they do.
    await page.getByTestId('clients-table').getByText('big-1', { exact: true }).waitFor();
    await page.getByTestId('select-page').check();
    await page.getByTestId('select-all-matching').click();
    await page.getByText('All 20000 clients matching the filter are selected').waitFor();
    await page.getByTestId('bulk-actions').click();
    await page.getByTestId('bulk-extend').click();
    await page.getByTestId('extend-days').fill('1');
    await page.getByTestId('run-extend').click();
    await page.getByTestId('bulk-progress').waitFor();
    await page.getByText('of 20000 clients changed').waitFor({ timeout: 180_000 });
    await waitFor('the progress bar to go', async () => (await page.getByTestId('bulk-progress').count()) === 0);
  }, 240_000);
});
