import type { Page } from 'playwright-core';
import { WEB_PAGES, type WebPage } from '../../libs/contracts/web-paths.js';
import { fixtures, type TestUser } from '../support/fixtures.js';
import { waitFor } from '../support/wait-for.js';
import { webPanel } from '../support/web-panel.js';

/**
 * Every page opened by its address as a reseller and as a viewer (docs/roles.md): no page
 * error, no rows loading for ever, and the page's "not for your role" message where the role may
 * not go, with no buttons; on the pages a viewer reads, no button that would change anything.
 */
const panel = webPanel();
const f = fixtures(panel.session);

/** What each role may not use: the API refuses it the page's reads (docs/roles.md). */
const STAFF_PAGES: WebPage[] = [
  'groups',
  'interfaces',
  'hosts',
  'outbounds',
  'routing',
  'template',
  'nodes',
  'system',
  'settings',
];
const REFUSED: Record<'reseller' | 'viewer', WebPage[]> = {
  reseller: [...STAFF_PAGES, 'notifications', 'backups', 'audit', 'operators'],
  viewer: ['notifications', 'backups', 'audit', 'operators'],
};

/**
 * A button that changes the panel: what a viewer must not be offered. (Issuing their own API
 * token is every role's, docs/roles.md, so "Issue token" is not one.)
 */
const WRITE = /^(add|new|create|delete|remove|edit|save|apply|import|restore|upload|enrol|generate|disable|enable)\b/i;

/** Opens a page by its address and waits until it has settled: its title, and nothing loading. */
async function openPage(page: Page, address: string): Promise<void> {
  await page.goto(address);
  await page.locator('main h2').first().waitFor();
  await waitFor(`${address} to finish loading`, async () => {
    const loading = await page.locator('main .mantine-Skeleton-root, main .mantine-Loader-root').count();
    return loading === 0;
  });
}

async function mainButtons(page: Page): Promise<string[]> {
  const names: string[] = [];
  for (const button of await page.locator('main button, main [role="button"]').all())
    names.push(((await button.getAttribute('aria-label')) ?? (await button.innerText())).trim());
  return names;
}

describe('each page as a reseller and as a viewer', () => {
  const users: Record<'reseller' | 'viewer', TestUser | undefined> = { reseller: undefined, viewer: undefined };

  beforeAll(async () => {
    const iface = await f.createInterface();
    await f.createClient({ name: 'owners-client', interfaceIds: [iface.id] });
    users.reseller = await f.createUser('reseller');
    users.viewer = await f.createUser('viewer');
    const made = await panel.session().t.call('POST', 'clients', {
      token: users.reseller.token,
      body: { name: 'resellers-client', interfaceIds: [iface.id] },
    });
    expect(made.status).toBe(201);
  });

  test.each(['reseller', 'viewer'] as const)('as a %s', async (role) => {
    const browser = await panel.browserAt({}, users[role]);
    const { page } = browser;
    const seen: Record<string, string> = {};
    for (const name of WEB_PAGES) {
      await openPage(page, panel.url(`/${name}`));
      const refusal = page.getByTestId('role-refusal');
      const refused = (await refusal.count()) > 0;
      seen[name] = refused ? 'refused' : 'shown';
      if (refused) expect(await mainButtons(page)).toEqual([]);
      // Their own account (password, language, tokens) is every role's to change.
      else if (role === 'viewer' && name !== 'account') {
        const writes = (await mainButtons(page)).filter((button) => WRITE.test(button));
        expect({ name, writes }).toEqual({ name, writes: [] });
      }
      expect({ name, errors: browser.pageErrors }).toEqual({ name, errors: [] });
    }
    const expected = Object.fromEntries(
      WEB_PAGES.map((name) => [name, REFUSED[role].includes(name) ? 'refused' : 'shown']),
    );
    expect(seen).toEqual(expected);
    // The message says who the page is for, as Backups always did.
    await openPage(page, panel.url('/backups'));
    await page.getByText('Only the owner and admins make and list backups.').waitFor();
    if (role === 'reseller') {
      await openPage(page, panel.url('/interfaces'));
      await page.getByText('Only the owner, admins and viewers use this page').waitFor();
      // Their own client's details name its interface without reading the panel's interfaces.
      await openPage(page, panel.url('/clients'));
      await page.getByText('resellers-client').click();
      await page.getByTestId('client-interface').waitFor();
      expect(await page.getByTestId('interface-key-label').count()).toBe(0);
      expect(browser.pageErrors).toEqual([]);
    }
  });
});

describe('Backups as an admin', () => {
  test('shows the list and the buttons of what an admin may do (make one), and says the rest is the owner’s', async () => {
    expect((await f.call('POST', 'backups')).status).toBe(201);
    const admin = await f.createUser('admin');
    const browser = await panel.browserAt({}, admin);
    const { page } = browser;
    await openPage(page, panel.url('/backups'));
    expect(await page.getByTestId('role-refusal').count()).toBe(0);
    await page.getByTestId('backups-table').getByText('.tar.gz', { exact: false }).first().waitFor();
    await page.getByTestId('backups-admin-hint').waitFor();
    // Making one is an admin's (POST /api/backups); download, upload, restore and delete are the owner's.
    const buttons = await mainButtons(page);
    expect(buttons).toContain('Create backup');
    expect(buttons.filter((name) => /^(download|upload|restore|delete)\b/i.test(name))).toEqual([]);
    const before = ((await f.call('GET', 'backups')).body.backups as unknown[]).length;
    await page.getByTestId('create-backup').click();
    await waitFor(
      'the backup made by the admin listed',
      async () => ((await f.call('GET', 'backups')).body.backups as unknown[]).length === before + 1,
    );
    expect(browser.pageErrors).toEqual([]);
  });
});
