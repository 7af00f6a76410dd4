import type { Page, Route } from 'playwright-core';
import { assertWebBuilt, PHONE, signedInBrowser, type TestBrowser } from '../support/browser.js';
import { fixtures, type NodeView } from '../support/fixtures.js';
import { OWNER, startTestPanel, type TestPanel } from '../support/test-panel.js';
import { waitFor } from '../support/wait-for.js';

/**
 * The panel's lists in a real browser (Debian's Chromium through playwright-core): paging with
 * every page reachable and the view in the address, interfaces named with their node, phone-sized
 * lists in Persian, and skeleton rows while a list loads.
 */
// What the callbacks given to page.evaluate() see: they run in the page, not in Node.
declare const document: any;
declare const window: any;

const CLIENTS = 130;

describe('the web panel’s lists', () => {
  let t: TestPanel;
  let token = '';
  const f = fixtures(() => ({ t, token }));
  let remote: NodeView;
  let localName = '';
  const url = (path: string) => `${t.panel.origin}${t.config.basePath}${path}`;
  const opened: TestBrowser[] = [];

  /** A browser signed in as the owner (the sign-in route sets its session cookie), in `language`. */
  async function browserAt(options: { viewport?: typeof PHONE; language?: 'fa' } = {}): Promise<Page> {
    const browser = await signedInBrowser(url, OWNER, options);
    opened.push(browser);
    return browser.page;
  }

  const rowsOf = (page: Page, testId: string) => page.locator(`[data-testid="${testId}"] tbody tr`);
  const firstRowName = (page: Page) =>
    page.locator('[data-testid="clients-table"] tbody tr').first().getAttribute('data-row');
  const param = (page: Page, name: string) => new URL(page.url()).searchParams.get(name);

  beforeAll(async () => {
    assertWebBuilt();
    t = await startTestPanel();
    token = await t.login();
    remote = await f.createNode({ name: 'edge-2' });
    const nodes = (await f.call('GET', 'nodes')).body as { name: string; isLocal: boolean }[];
    localName = nodes.find((node) => node.isLocal)!.name;
    const local = await f.createInterface({ name: 'wg0' });
    await f.createInterface({ name: 'wg0', nodeId: remote.id });
    for (let i = 0; i < CLIENTS; i++) {
      const client = await f.createClient({ name: `bulk-${String(i).padStart(3, '0')}`, interfaceIds: [local.id] });
      if (i % 10 === 3) expect((await f.call('PATCH', `clients/${client.id}`, { enabled: false })).status).toBe(200);
    }
  });
  afterAll(async () => {
    for (const browser of opened) await browser.close();
    await t?.stop();
  });

  test('any page opens by its number or first/last; page, size, search, filters and order live in the address', async () => {
    const page = await browserAt();
    await page.goto(url('/clients'));
    await page.getByText(`${CLIENTS} clients`).waitFor();
    await page.getByRole('combobox', { name: 'Order' }).click();
    await page.getByRole('option', { name: 'By name' }).click();
    await waitFor('the clients by name', async () => (await firstRowName(page)) === 'bulk-000');
    expect(param(page, 'sort')).toBe('name');

    // Page 4 straight from page 1 (before, only page 2 could be pressed).
    const [asked] = await Promise.all([
      page.waitForRequest((request) => new URL(request.url()).searchParams.get('page') === '4'),
      page.getByRole('button', { name: '4', exact: true }).click(),
    ]);
    expect(new URL(asked.url()).searchParams.get('sort')).toBe('name');
    await waitFor('page 4', async () => (await firstRowName(page)) === 'bulk-075');
    expect(param(page, 'page')).toBe('4');

    // A reload shows the same page in the same order.
    await page.reload();
    await waitFor('page 4 after a reload', async () => (await firstRowName(page)) === 'bulk-075');
    expect(await page.getByRole('combobox', { name: 'Order' }).inputValue()).toBe('By name');

    await page.getByRole('button', { name: 'Last page' }).click();
    await waitFor('the last page', async () => (await rowsOf(page, 'clients-table').count()) === CLIENTS % 25);
    expect(param(page, 'page')).toBe(String(Math.ceil(CLIENTS / 25)));
    await page.getByRole('button', { name: 'First page' }).click();
    await waitFor('the first page', async () => (await firstRowName(page)) === 'bulk-000');

    // Back returns to the pages before, as they were.
    await page.goBack();
    await waitFor('Back: the last page', async () => (await rowsOf(page, 'clients-table').count()) === CLIENTS % 25);
    await page.goBack();
    await waitFor('Back: page 4', async () => (await firstRowName(page)) === 'bulk-075');

    // 50 a page: back to page 1, fewer pages.
    await page.getByRole('combobox', { name: 'Rows per page' }).click();
    await page.getByRole('option', { name: '50' }).click();
    await waitFor('50 rows', async () => (await rowsOf(page, 'clients-table').count()) === 50);
    expect([param(page, 'perPage'), param(page, 'page')]).toEqual(['50', null]);
    expect(await page.getByRole('button', { name: String(Math.ceil(CLIENTS / 50)), exact: true }).count()).toBe(1);

    await page.getByRole('combobox', { name: 'Status' }).click();
    await page.getByRole('option', { name: 'disabled' }).click();
    await page.getByText(`${CLIENTS / 10} clients`).waitFor();
    expect(param(page, 'status')).toBe('disabled');
    await page.getByTestId('client-search').fill('bulk-12');
    await waitFor('the search in the address', async () => param(page, 'search') === 'bulk-12');
    await page.getByText('1 client', { exact: true }).waitFor();
    expect(await firstRowName(page)).toBe('bulk-123');

    // A link with the whole view opens it; Back from the search brings the field back empty.
    await page.reload();
    await page.getByText('1 client', { exact: true }).waitFor();
    expect(await page.getByTestId('client-search').inputValue()).toBe('bulk-12');
    await page.goBack();
    await page.getByText(`${CLIENTS / 10} clients`).waitFor();
    expect(await page.getByTestId('client-search').inputValue()).toBe('');

    // An old link past the end shows the last page.
    await page.goto(url('/clients?page=99&sort=name'));
    await waitFor('the last page for page 99', async () => param(page, 'page') === String(Math.ceil(CLIENTS / 25)));
    expect(await firstRowName(page)).toBe('bulk-125');
  });

  test('two interfaces named wg0 on two nodes: the node shows in the list, the client form and the delete prompt', async () => {
    const page = await browserAt();
    await page.goto(url('/interfaces'));
    const rows = page.locator('[data-testid="interfaces-table"] tbody tr[data-row="wg0"]');
    await waitFor('both wg0', async () => (await rows.count()) === 2);
    const nodeColumn = await rows.evaluateAll((all: any[]) => all.map((row) => row.cells[1].textContent));
    expect(nodeColumn.sort()).toEqual([localName, 'edge-2'].sort());

    const onRemote = page.locator('[data-testid="interfaces-table"] tbody tr[data-node="edge-2"]');
    await onRemote.getByRole('button', { name: 'Delete' }).click();
    const prompt = page.getByRole('dialog', { name: 'Are you sure?' });
    await prompt.getByText('Delete the interface wg0 on edge-2?').waitFor();
    await prompt.getByRole('button', { name: 'Cancel' }).click();

    await page.goto(url('/clients'));
    await page.getByTestId('new-client').click();
    await page.getByRole('dialog').locator('.mantine-MultiSelect-input').click();
    const options = page.getByRole('option');
    await waitFor('the interfaces offered', async () => (await options.count()) === 2);
    expect((await options.allTextContents()).sort()).toEqual([`wg0 · ${localName}`, 'wg0 · edge-2'].sort());
  });

  test('on a phone in Persian, clients and nodes show name, status and usage without scrolling sideways, no badge cut', async () => {
    const page = await browserAt({ viewport: PHONE, language: 'fa' });
    for (const [path, list] of [
      ['/clients', 'clients-table'],
      ['/nodes', 'nodes-table'],
    ] as const) {
      await page.goto(url(path));
      const cards = page.locator(`[data-testid="${list}"] [data-testid="list-card"]`);
      await cards.first().waitFor();
      expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl');
      const layout = await page.evaluate((id: string) => {
        const within = (element: any) => {
          const box = element.getBoundingClientRect();
          return box.left >= 0 && box.right <= window.innerWidth;
        };
        const cards = [...document.querySelectorAll(`[data-testid="${id}"] [data-testid="list-card"]`)];
        const badges = [...document.querySelectorAll(`[data-testid="${id}"] [data-testid="state-badge"]`)];
        return {
          pageWidth: document.documentElement.scrollWidth,
          cardsInside: cards.every(within),
          texts: cards.slice(0, 3).map((card: any) => card.innerText),
          badges: badges.length,
          // A cut badge is wider inside than it shows (an ellipsis), or reaches past its card.
          cutBadges: badges
            .filter((badge: any) => {
              const label = badge.querySelector('.mantine-Badge-label') ?? badge;
              return label.scrollWidth > label.clientWidth + 1 || !within(badge);
            })
            .map((badge: any) => badge.innerText),
        };
      }, list);
      expect(layout.pageWidth).toBeLessThanOrEqual(PHONE.width);
      expect(layout.cardsInside).toBe(true);
      expect(layout.badges).toBeGreaterThan(0);
      expect(layout.cutBadges).toEqual([]);
      if (list === 'clients-table') {
        // Name, status (Persian) and usage on the card itself.
        expect(layout.texts[0]).toMatch(/bulk-\d{3}/);
        expect(layout.texts.join('\n')).toMatch(/فعال|غیرفعال/);
        expect(layout.texts[0]).toMatch(/۰\sبایت \/ ∞/);
      } else {
        expect(layout.texts.join('\n')).toContain('edge-2');
      }
    }
  });

  test('a list that is loading shows skeleton rows, an empty one says what to do (no empty table)', async () => {
    const page = await browserAt();
    for (const [path, api] of [
      ['/clients', '/api/clients'],
      ['/interfaces', '/api/interfaces'],
      ['/nodes', '/api/nodes'],
      ['/hosts', '/api/hosts'],
    ] as const) {
      // The list's answer is held until the skeleton was seen: no timing involved.
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const hold = async (route: Route) => {
        await held;
        await route.continue();
      };
      const pattern = (address: URL) => address.pathname === `${t.config.basePath}${api}`;
      await page.route(pattern, hold);
      await page.goto(url(path));
      await page.getByTestId('skeleton-row').first().waitFor();
      expect(await page.locator('tbody tr:not([data-testid="skeleton-row"])').count()).toBe(0);
      release();
      await page.getByTestId('skeleton-row').first().waitFor({ state: 'detached' });
      await page.unroute(pattern, hold);
    }
    // No host (and no host group) yet: each list's empty state, and no table of headers alone.
    await page.getByTestId('empty-state').filter({ hasText: 'No hosts' }).waitFor();
    await page.getByTestId('empty-state').filter({ hasText: 'No host groups' }).waitFor();
    expect(await page.locator('table').count()).toBe(0);
  });
});
