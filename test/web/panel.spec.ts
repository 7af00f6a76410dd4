import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import {
  assertWebBuilt,
  dismissToasts,
  launchBrowser,
  openSettled,
  untilSettled,
  type TestBrowser,
} from '../support/browser.js';
import { WEB_PAGES, WEB_PATHS } from '#libs/contracts/web-paths.js';
import { fixtures, type Fixtures } from '../support/fixtures.js';
import { fakeAgentWorker } from '../support/node-queue.js';
import { ROOT } from '../support/spawned-process.js';
import { OWNER, startTestPanel, type TestPanel } from '../support/test-panel.js';
import { waitFor } from '../support/wait-for.js';

/**
 * The web panel in a real browser (Debian's Chromium through playwright-core) against a real
 * panel serving the built app (dist/web): every step goes through the pages as a person would.
 * Each page's screenshot is kept in docs/screenshots/ (shown in README.md).
 *
 * Every test stands alone (runs alone with `-t`, in any order): it signs in for itself (open())
 * and makes what it needs through the API (fixtures), named for it, and reads only what it made.
 */
// What the callbacks given to page.evaluate() see: they run in the page, not in Node.
declare const document: any;
declare const window: any;
declare const navigator: any;

const SCREENSHOTS = join(ROOT, 'docs', 'screenshots');
const exec = promisify(execFile);

async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  // Let transitions and charts settle in the picture (waiting for a condition: no spinner left),
  // without the toasts of the steps before it.
  await untilSettled(page);
  await dismissToasts(page);
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
}

async function signIn(page: Page): Promise<void> {
  await page.getByLabel('Username').fill(OWNER.username);
  await page.getByRole('textbox', { name: 'Password' }).fill(OWNER.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** The routes GET /api/docs lists, as patterns of request paths (`{id}` is one path segment). */
async function listedRoutes(t: TestPanel, token: string): Promise<{ method: string; pattern: RegExp; path: string }[]> {
  const docs = await t.call('GET', 'docs', { token });
  return docs.body.groups.flatMap((group: { endpoints: { method: string; path: string }[] }) =>
    group.endpoints.map((endpoint) => ({
      method: endpoint.method,
      path: endpoint.path,
      pattern: new RegExp(`^${endpoint.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
    })),
  );
}

/**
 * Every call the page made to the panel is a route GET /api/docs lists (no private path), and
 * everything else it fetched is the app's own files under the base path; nothing went elsewhere.
 */
async function expectOnlyListedRoutes(t: TestPanel, browser: TestBrowser, atLeast: number): Promise<void> {
  const routes = await listedRoutes(t, await t.login());
  const origin = t.panel.origin;
  const base = t.config.basePath;
  const unlisted: string[] = [];
  let apiCalls = 0;
  for (const request of browser.requests) {
    const url = new URL(request.url);
    if (url.protocol === 'data:' || url.protocol === 'blob:') continue;
    expect(url.origin).toBe(origin);
    if (url.pathname.startsWith(`${base}/api/`)) {
      apiCalls++;
      if (!routes.some((route) => route.method === request.method && route.pattern.test(url.pathname)))
        unlisted.push(`${request.method} ${url.pathname}`);
    } else {
      expect([request.method, url.pathname.startsWith(`${base}/`)]).toEqual(['GET', true]);
    }
  }
  expect(unlisted).toEqual([]);
  expect(apiCalls).toBeGreaterThanOrEqual(atLeast);
}

describe('the web panel in a browser', () => {
  let t: TestPanel;
  let browser: TestBrowser;
  let page: Page;
  /** The owner's token for this test (a fresh sign-in: a restored backup may have dropped the last). */
  let token: string;
  const f: Fixtures = fixtures(() => ({ t, token }));
  const url = (path: string) => `${t.panel.origin}${t.config.basePath}${path}`;

  /** The browser signed in as the owner (the session cookie sign-in sets), on the page at `path`. */
  async function open(path: string): Promise<void> {
    const session = await t.login();
    await browser.context.clearCookies();
    await browser.context.addCookies([
      { name: 'warren_session', value: session, url: t.panel.origin, httpOnly: true, sameSite: 'Strict' },
    ]);
    await page.goto(url(path));
  }

  beforeAll(async () => {
    assertWebBuilt();
    t = await startTestPanel();
    browser = await launchBrowser();
    page = browser.page;
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.panel.origin });
  });
  beforeEach(async () => {
    token = await t.login();
    await page.setViewportSize({ width: 1280, height: 800 });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  test('a deep link asks to sign in, then lands where it pointed', async () => {
    expect(t.panel.webApp).toBe(true);
    await browser.context.clearCookies();
    await page.goto(url('/interfaces'));
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(new URL(page.url()).searchParams.get('next')).toBe('/interfaces');
    await screenshot(page, 'sign-in');
    await page.getByLabel('Username').fill(OWNER.username);
    await page.getByRole('textbox', { name: 'Password' }).fill('wrong-password-1');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('form-error').waitFor();
    await signIn(page);
    await page.getByRole('heading', { name: 'Interfaces' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/interfaces');
    // The session is the HttpOnly cookie: no script can read it.
    const cookies = await browser.context.cookies();
    expect(cookies.find((cookie) => cookie.httpOnly)).toBeDefined();
    expect(await page.evaluate(() => document.cookie)).toBe('');
  });

  test('create an interface: a refused field shows the API message beside it and keeps the input', async () => {
    await open('/interfaces');
    await page.getByTestId('new-interface').click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('wg-web');
    const subnet = dialog.getByRole('textbox', { name: 'Subnet' });
    await subnet.fill('not-a-subnet');
    await dialog.getByTestId('interface-submit').click();
    await waitFor('the subnet marked invalid', async () => (await subnet.getAttribute('aria-invalid')) === 'true');
    expect(await subnet.inputValue()).toBe('not-a-subnet');
    expect(await dialog.getByLabel('Name').inputValue()).toBe('wg-web');
    await subnet.fill('10.66.0.0/24');
    await dialog.getByTestId('interface-submit').click();
    await page.getByTestId('interfaces-table').getByText('wg-web').waitFor();
    await screenshot(page, 'interfaces');
  });

  test('create a client, open its configs and see a QR code', async () => {
    const iface = await f.createInterface({ name: 'wg-alice' });
    await open('/overview');
    await page.getByRole('link', { name: 'Clients' }).click();
    await page.getByTestId('new-client').click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('alice-web');
    await dialog.locator('.mantine-MultiSelect-input').click();
    await page.getByRole('option', { name: iface.name }).click();
    await dialog.getByTestId('client-submit').click();
    await page.getByTestId('open-configs').click();
    await page.getByTestId('show-qr').first().click();
    const qr = page.getByTestId('qr-code');
    await qr.waitFor();
    expect(await qr.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    await screenshot(page, 'client-qr');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');
    await page.goto(url('/clients'));
    await page.getByTestId('clients-table').getByText('alice-web').waitFor();
    await page.getByTestId('client-search').fill('nobody-matches-this');
    await page.getByTestId('empty-state').waitFor();
    await page.getByTestId('client-search').fill('alice');
    await page.getByTestId('clients-table').getByText('alice-web').waitFor();
  });

  test('a client is changed, disabled, reset (after a confirmation) and given a device', async () => {
    const iface = await f.createInterface();
    const client = await f.createClient({ name: 'bob-web', interfaceIds: [iface.id] });
    expect([client.deviceLimit, client.devices.length]).toEqual([1, 1]);
    await open('/clients');
    await page.getByTestId('client-search').fill('bob-web');
    // The search is in the address once it is committed (150 ms after the last key): open the client then.
    await page.waitForURL(/search=bob-web/);
    await page.getByTestId('clients-table').getByText('bob-web').click();
    const drawer = page.getByRole('dialog');
    // One device already, at the limit of one: the API refuses, its message shows, the name stays.
    const deviceName = drawer.getByLabel('New device name');
    await deviceName.fill('laptop');
    await drawer.getByRole('button', { name: 'Add device' }).click();
    await waitFor(
      'the refusal shown',
      async () =>
        (await drawer.getByTestId('form-error').count()) +
          ((await deviceName.getAttribute('aria-invalid')) === 'true' ? 1 : 0) >
        0,
    );
    expect(await deviceName.inputValue()).toBe('laptop');

    await drawer.getByTestId('edit-client').click();
    await drawer.getByLabel('Note').fill('from the browser');
    await drawer.getByLabel('Device limit').fill('2');
    await drawer.getByTestId('client-submit').click();
    await drawer.getByText('from the browser').waitFor();
    await drawer.getByRole('switch', { name: 'Enabled' }).click();
    await drawer.getByText('disabled', { exact: true }).waitFor();
    await drawer.getByRole('switch', { name: 'Enabled' }).click();
    await drawer.getByText('active', { exact: true }).waitFor();
    await drawer.getByTestId('reset-client').click();
    await page.getByRole('dialog', { name: 'Are you sure?' }).getByTestId('confirm').click();
    await page.getByText('Traffic reset to zero').waitFor();
    await drawer.getByLabel('New device name').fill('laptop');
    await drawer.getByRole('button', { name: 'Add device' }).click();
    await drawer.getByText('laptop', { exact: true }).waitFor();
    await screenshot(page, 'client');
    const [stored] = await t.query<{ note: string }>('select note from clients where id = $1', [client.id]);
    expect(stored.note).toBe('from the browser');
    await page.keyboard.press('Escape');
  });

  test('clients come a page at a time (the next page by its cursor) and filter by status on the server', async () => {
    // 31 clients of this test's own groups; the filters keep every other test's clients out of view.
    const iface = await f.createInterface();
    for (let i = 0; i < 31; i++) {
      const made = await f.createClient({
        name: `paged-${String(i).padStart(2, '0')}`,
        interfaceIds: [iface.id],
        groups: i % 2 ? ['paged', 'paged-odd'] : ['paged'],
      });
      if (i === 7)
        expect((await t.call('PATCH', `clients/${made.id}`, { token, body: { enabled: false } })).status).toBe(200);
    }
    await open('/clients');
    const rows = page.locator('[data-testid="clients-table"] tbody tr');
    // Filtered once the list filtered by the group has come (alone, the unfiltered list counts 31 too).
    const filtered = (group: string) =>
      page.waitForResponse((response) => {
        const requested = new URL(response.url());
        return requested.pathname.endsWith('/api/clients') && requested.searchParams.get('group') === group;
      });
    await Promise.all([filtered('paged'), page.getByLabel('Group', { exact: true }).fill('paged')]);
    await page.getByText('31 clients').waitFor();
    await waitFor('the first page', async () => (await rows.count()) === 25);
    const [next] = await Promise.all([
      page.waitForRequest(
        (request) =>
          new URL(request.url()).pathname.endsWith('/api/clients') && new URL(request.url()).searchParams.has('cursor'),
      ),
      page.getByRole('button', { name: '2', exact: true }).click(),
    ]);
    expect(new URL(next.url()).searchParams.get('perPage')).toBe('25');
    await waitFor('the second page', async () => (await rows.count()) === 6);
    await page.getByRole('combobox', { name: 'Status' }).click();
    await page.getByRole('option', { name: 'disabled' }).click();
    await waitFor(
      'the disabled client alone',
      async () => (await rows.count()) === 1 && (await rows.first().textContent())!.includes('paged-07'),
    );
    await page.getByRole('combobox', { name: 'Status' }).click();
    await page.getByRole('option', { name: 'disabled' }).click();
    await page.getByLabel('Group', { exact: true }).fill('paged-odd');
    await page.getByText('15 clients').waitFor();
    await page.getByLabel('Group', { exact: true }).fill('paged');
    await page.getByText('31 clients').waitFor();
    await page.getByRole('combobox', { name: 'Order' }).click();
    await page.getByRole('option', { name: 'By name' }).click();
    await waitFor('the clients by name', async () => (await rows.first().textContent())!.includes('paged-00'));
    await screenshot(page, 'clients');
  });

  test('a host is added to the interface', async () => {
    await f.createInterface({ name: 'wg-hosts' });
    await open('/hosts');
    await page.getByRole('button', { name: 'New host', exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('second-address');
    await dialog.getByLabel('Address').fill('127.0.0.2');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('row', { name: /second-address/ }).waitFor();
    await screenshot(page, 'hosts');
  });

  test('add a node and copy its enrolment command', async () => {
    await open('/nodes');
    await page.getByTestId('new-node').click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('edge-1');
    await dialog.getByLabel('Address').fill('192.0.2.10');
    await dialog.getByRole('button', { name: 'Create' }).click();
    const command = page.getByTestId('enrol-command');
    await command.waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Copy' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(await command.textContent());
    await page.keyboard.press('Escape');
    await page.getByRole('cell', { name: 'edge-1' }).waitFor();
    await page
      .getByRole('row', { name: /edge-1/ })
      .getByRole('button', { name: 'Edit' })
      .click();
    await page.getByRole('dialog').getByLabel('Name').fill('edge-one');
    await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
    await page.getByRole('cell', { name: 'edge-one' }).waitFor();
  });

  test('create an outbound (a refused address named) and check it: the probe result with its stages', async () => {
    // No agent runs for the test panel's node: the check ends as a timeout, after the probe timeout.
    expect((await t.call('PATCH', 'settings', { token, body: { probeTimeoutMs: 500 } })).status).toBe(200);
    await open('/outbounds');
    await page.locator('[data-testid="outbound-row"][data-tag="direct"]').waitFor();
    await page.getByTestId('new-outbound').click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Tag').fill('proxy-1');
    const address = dialog.getByLabel('Server (host:port)');
    await address.fill('127.0.0.1:1080');
    await dialog.getByTestId('outbound-submit').click();
    await waitFor('the private address refused', async () => (await address.getAttribute('aria-invalid')) === 'true');
    await address.fill('203.0.113.7:1080');
    await dialog.getByTestId('outbound-submit').click();
    const row = page.locator('[data-testid="outbound-row"][data-tag="proxy-1"]');
    await row.waitFor();
    await row.getByTestId('check-outbound').click();
    const result = page.getByTestId('probe-result');
    await result.waitFor({ timeout: 30_000 });
    expect(await result.getByTestId('probe-stage').count()).toBe(4);
    expect(await result.getByTestId('probe-ok').textContent()).toBe('unreachable');
    await page.keyboard.press('Escape');
    await result.waitFor({ state: 'detached' });

    // A stand-in for the node's agent answers the next probe job (test/support/node-queue.ts): the
    // page shows what the agent measured, stage by stage.
    const local = (await t.call('GET', 'nodes', { token })).body.find((node: { isLocal: boolean }) => node.isLocal);
    const measured = {
      ok: true,
      latencyMs: 42.4,
      stages: { dns: 1.2, connect: 10.5, handshake: 5.1, firstByte: 25.6 },
      errorClass: null,
      error: null,
      egressIp: '198.51.100.99',
    };
    const agent = fakeAgentWorker(t, local.id, async () => measured);
    try {
      await row.getByTestId('check-outbound').click();
      await result.waitFor({ timeout: 30_000 });
      expect(await result.getByTestId('probe-ok').textContent()).toBe('reachable');
      expect(await result.getByTestId('probe-stage').allTextContents()).toEqual([
        'DNS1 ms',
        'Connect11 ms',
        'Handshake5 ms',
        'First byte26 ms',
      ]);
      await result.getByText('198.51.100.99').waitFor();
      await screenshot(page, 'outbound-check');
    } finally {
      await agent.close();
    }
    await page.keyboard.press('Escape');
    await row.getByText('198.51.100.99').waitFor();
    await screenshot(page, 'outbounds');
  });

  test('routing rules are reordered by dragging, and the order endpoint stores it', async () => {
    // On the panel's own node, which the routing page shows first.
    const node = (await t.call('GET', 'nodes', { token })).body.find((entry: { isLocal: boolean }) => entry.isLocal);
    const iface = await f.createInterface({ name: 'wg-routing' });
    await f.createClient({ name: 'carol-routing', interfaceIds: [iface.id] });
    for (const name of ['first-rule', 'second-rule']) {
      expect(
        (
          await t.call('POST', `routing/rules?nodeId=${node.id}`, {
            token,
            body: { name, domains: [`${name}.example`], outboundTag: 'direct' },
          })
        ).status,
      ).toBe(201);
    }
    await open('/routing');
    const rules = page.getByTestId('rule');
    await rules.nth(1).waitFor();
    expect(await rules.evaluateAll((cards) => cards.map((card) => card.getAttribute('data-name')))).toEqual([
      'first-rule',
      'second-rule',
    ]);
    // Drag the second rule's handle above the first (both in view: the page has more above them).
    await rules.nth(1).scrollIntoViewIfNeeded();
    const handle = rules.nth(1).getByTestId('drag-handle');
    const from = (await handle.boundingBox())!;
    const to = (await rules.nth(0).boundingBox())!;
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(from.x + from.width / 2, from.y - 10, { steps: 5 });
    await page.mouse.move(from.x + from.width / 2, to.y + 2, { steps: 10 });
    await page.mouse.up();
    await waitFor('the order stored', async () => {
      const routing = await t.call('GET', `routing?nodeId=${node.id}`, { token });
      return routing.body.rules.map((rule: { name: string }) => rule.name).join() === 'second-rule,first-rule';
    });
    expect(await rules.evaluateAll((cards) => cards.map((card) => card.getAttribute('data-name')))).toEqual([
      'second-rule',
      'first-rule',
    ]);
    await screenshot(page, 'routing');

    // Clients and interfaces are picked by name (clients found by a search the API answers); the rule stores their ids.
    await page.getByTestId('new-rule').click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('picked-rule');
    await dialog.getByTestId('rule-clients').click();
    const [search] = await Promise.all([
      page.waitForRequest(
        (request) =>
          new URL(request.url()).pathname.endsWith('/api/clients') &&
          new URL(request.url()).searchParams.get('search') === 'carol',
      ),
      page.keyboard.type('carol'),
    ]);
    expect(Number(new URL(search.url()).searchParams.get('perPage'))).toBeLessThanOrEqual(50);
    await page.getByRole('option', { name: 'carol-routing' }).click();
    await dialog.getByTestId('rule-interfaces').click();
    await page.getByRole('option', { name: 'wg-routing' }).click();
    // Close the list (with other tests' interfaces in it, it reaches over the submit button).
    await dialog.getByLabel('Name').click();
    await page.getByRole('option', { name: 'wg-routing' }).waitFor({ state: 'hidden' });
    await dialog.getByTestId('rule-submit').click();
    await page.locator('[data-testid="rule"][data-name="picked-rule"]').getByText('carol-routing').waitFor();
    const stored = (await t.call('GET', `routing?nodeId=${node.id}`, { token })).body.rules.find(
      (rule: { name: string }) => rule.name === 'picked-rule',
    );
    const [carol] = (await t.call('GET', 'clients?search=carol-routing', { token })).body.items;
    expect([stored.clients, stored.interfaces]).toEqual([[carol.id], [iface.id]]);
  });

  test('the template: view a section, import a file after its preview, see what was created and updated', async () => {
    await f.createHost({ name: 'template-host', address: '127.0.0.4', interfaceId: (await f.createInterface()).id });
    const { hosts } = (await t.call('GET', 'template?section=hosts', { token })).body;
    const own = hosts.find((host: { name: string }) => host.name === 'template-host');
    const file = join(mkdtempSync(join(tmpdir(), 'warren-template-')), 'hosts.json');
    writeFileSync(file, JSON.stringify({ hosts: [own, { ...own, name: 'imported-host', address: '127.0.0.3' }] }));
    await open('/template');
    await page
      .getByTestId('template-section')
      .locator('label', { hasText: /^Hosts$/ })
      .click();
    await page.getByTestId('template-view').getByText('template-host').waitFor();
    await page.locator('input[type="file"]').setInputFiles(file);
    const preview = page.locator('[data-testid="import-preview"] tr[data-section="hosts"]');
    await preview.waitFor();
    expect(await preview.locator('td').allTextContents()).toEqual(['Hosts', '1', '1']);
    await screenshot(page, 'template-import');
    await page.getByTestId('confirm-import').click();
    const result = page.locator('[data-testid="import-result"] tr[data-section="hosts"]');
    await result.waitFor();
    expect(await result.locator('td').allTextContents()).toEqual(['Hosts', '1', '1']);
    await page.keyboard.press('Escape');
    await page.getByTestId('template-view').getByText('imported-host').waitFor();
    await screenshot(page, 'template');
  });

  test('issue a token, copy a curl command from the API page and run it for real', async () => {
    await f.createClient({ name: 'dave-curl', interfaceIds: [(await f.createInterface()).id] });
    await open('/nodes');
    await page.getByTestId('token-name').fill('web-test');
    await page.getByTestId('issue-token').click();
    const issued = (await page.getByTestId('issued-token').textContent())!.trim();
    expect(issued).toMatch(/^wrn_/);
    await screenshot(page, 'nodes');

    await page.goto(url('/api-docs'));
    const endpoint = page.locator(`[data-route="GET ${t.config.basePath}/api/clients"]`);
    await endpoint.getByRole('button', { name: 'Copy' }).click();
    const curl = await page.evaluate(() => navigator.clipboard.readText());
    expect(curl).toContain(`${t.panel.origin}${t.config.basePath}/api/clients`);
    expect(curl).toContain('$WARREN_TOKEN');
    await screenshot(page, 'api');
    const { stdout } = await exec('bash', ['-c', curl], { env: { ...process.env, WARREN_TOKEN: issued } });
    const answer = JSON.parse(stdout);
    // The same list the owner's session gets.
    const expected = (await t.call('GET', 'clients', { token })).body;
    expect(answer.total).toBeGreaterThanOrEqual(1);
    expect([answer.total, answer.items.length]).toEqual([expected.total, expected.items.length]);
  });

  test('create a backup with progress and download it', async () => {
    await open('/backups');
    await page.getByTestId('empty-state').waitFor();
    await page.getByTestId('create-backup').click();
    await page
      .getByTestId('backups-table')
      .getByText(/^backup-.*\.tar\.gz$/)
      .waitFor({ timeout: 60_000 });
    await screenshot(page, 'backups');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('download-backup').first().click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^backup-.*\.tar\.gz$/);
    const archive = readFileSync((await download.path())!);
    expect([archive[0], archive[1]]).toEqual([0x1f, 0x8b]);

    // Delete it, upload the downloaded archive back, then restore it after the confirmation.
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog', { name: 'Are you sure?' }).getByTestId('confirm').click();
    await page.getByTestId('empty-state').waitFor();
    await page.locator('input[type="file"]').setInputFiles((await download.path())!);
    await page.getByTestId('backups-table').getByText(download.suggestedFilename()).waitFor();
    await page.getByRole('button', { name: 'Restore' }).click();
    await page.getByRole('dialog', { name: 'Are you sure?' }).getByRole('button', { name: 'Restore' }).click();
    await page.getByText('Backup restored').waitFor({ timeout: 60_000 });
  });

  test('the System page draws a chart of the host history', async () => {
    // The controller samples its own host every 2 s; wait until the history holds eight readings,
    // so that each series is a line some pixels long on the 5-minute axis, not a dot.
    await waitFor(
      'eight samples in the history',
      async () => {
        const history = await t.call('GET', 'system/history?range=5m', { token });
        return history.body.series.cpu.filter((point: { v: number | null }) => point.v !== null).length >= 8;
      },
      60_000,
    );
    await open('/system');
    await page.getByTestId('range').locator('label', { hasText: /^5m$/ }).click();
    const canvas = page.getByTestId('chart').first().locator('canvas');
    await canvas.waitFor();
    // The first chart was given CPU, memory and disk (apps/web/src/pages/system.tsx): each drew its
    // line in its colour, which no other part of the chart (grid, axes, faint fills) comes near.
    const colours = { cpu: [0x12, 0xb8, 0x86], memory: [0x22, 0x8b, 0xe6], disk: [0xfa, 0xb0, 0x05] };
    const drawn = await waitFor('every series drawn', async () => {
      const counts = await canvas.evaluate((element, wanted) => {
        const { width, height } = element;
        const pixels = element.getContext('2d').getImageData(0, 0, width, height).data;
        const found: Record<string, number> = {};
        for (const [name, [r, g, b]] of Object.entries(wanted as Record<string, number[]>)) {
          found[name] = 0;
          for (let i = 0; i < pixels.length; i += 4)
            // Near the colour: a line under another series' translucent fill is tinted by it.
            if (
              Math.abs(pixels[i] - r) + Math.abs(pixels[i + 1] - g) + Math.abs(pixels[i + 2] - b) < 80 &&
              pixels[i + 3] > 200
            )
              found[name]++;
        }
        return found;
      }, colours);
      return Object.values(counts).every((n) => n > 0) ? counts : undefined;
    });
    expect(Object.keys(drawn)).toEqual(['cpu', 'memory', 'disk']);
    await screenshot(page, 'system');
  });

  test('overview and settings; a phone-sized screen gets a menu button', async () => {
    await open('/overview');
    await page.getByTestId('overview-updated').waitFor();
    await screenshot(page, 'overview');
    await page.goto(url('/settings'));
    await page.getByTestId('save-settings').waitFor();
    await page.getByLabel('Probe timeout (ms)').fill('6000');
    await page.getByTestId('save-settings').click();
    await page.getByText('Saved', { exact: true }).waitFor();
    expect((await t.call('GET', 'settings', { token })).body.probeTimeoutMs).toBe(6000);
    await screenshot(page, 'settings');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(url('/clients'));
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('link', { name: 'Overview' }).waitFor();
    await screenshot(page, 'phone-menu');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  test('dark theme, then Persian flips the layout right to left', async () => {
    // A rule to show on the routing page at the end.
    const node = (await t.call('GET', 'nodes', { token })).body.find((entry: { isLocal: boolean }) => entry.isLocal);
    expect(
      (
        await t.call('POST', `routing/rules?nodeId=${node.id}`, {
          token,
          body: { name: 'rtl-rule', domains: ['rtl.example'], outboundTag: 'direct' },
        })
      ).status,
    ).toBe(201);
    await open('/overview');
    await page.getByRole('button', { name: 'Light or dark theme' }).click();
    await waitFor('the dark scheme', () =>
      page.evaluate(() => document.documentElement.getAttribute('data-mantine-color-scheme') === 'dark'),
    );
    await screenshot(page, 'overview-dark');
    await page.getByRole('button', { name: 'Light or dark theme' }).click();
    await page.getByTestId('language-menu').click();
    await page.getByTestId('language-fa').click();
    await waitFor('dir=rtl', () => page.evaluate(() => document.documentElement.dir === 'rtl'));
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('fa');
    await page.getByRole('link', { name: 'نمای کلی' }).waitFor();
    // The sidebar moves to the right and the page beside it, clear of it.
    await waitFor('the layout flipped', () =>
      page.evaluate(() => {
        const navbar = document.querySelector('nav')!.getBoundingClientRect();
        const title = document.querySelector('main h2')!.getBoundingClientRect();
        return navbar.left > window.innerWidth / 2 && title.right <= navbar.left && title.left >= 0;
      }),
    );
    await screenshot(page, 'overview-fa');
    // On a phone, right to left, no page is wider than the screen (a wide one opens scrolled sideways, its title off-screen).
    await page.setViewportSize({ width: 390, height: 844 });
    for (const name of WEB_PAGES) {
      await openSettled(page, url(`/${name}`));
      expect([name, await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)]).toEqual([
        name,
        true,
      ]);
    }
    await page.goto(url('/routing'));
    await page.getByTestId('rule').first().scrollIntoViewIfNeeded();
    await screenshot(page, 'routing-fa-phone');
    await page.setViewportSize({ width: 1280, height: 800 });
    // The choice is kept across a reload.
    await page.reload();
    await page.getByRole('link', { name: 'نمای کلی' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl');
    await page.getByTestId('language-menu').click();
    await page.getByTestId('language-en').click();
    await waitFor('dir=ltr', () => page.evaluate(() => document.documentElement.dir === 'ltr'));
  });

  test('a lost connection shows a banner, a failed submit keeps the form, and the banner goes when the panel answers', async () => {
    await open('/nodes');
    await page.getByTestId('tokens-area').waitFor();
    await page.route('**/api/**', (route) => route.abort('internetdisconnected'));
    await page.getByTestId('token-name').fill('made-offline');
    await page.getByTestId('issue-token').click();
    await page.getByTestId('connection-banner').waitFor();
    await page.getByTestId('form-error').getByText('Connection to the panel lost').waitFor();
    expect(await page.getByTestId('token-name').inputValue()).toBe('made-offline');
    await page.unroute('**/api/**');
    await page.getByTestId('connection-banner').waitFor({ state: 'detached', timeout: 30_000 });
    // Submitted again once the panel answers: the same input goes through.
    await page.getByTestId('issue-token').click();
    await page.getByTestId('issued-token').waitFor();
  });

  test('an expired session goes to sign-in, then back to the page the person was on', async () => {
    await open('/hosts');
    await page.getByRole('button', { name: 'New host', exact: true }).waitFor();
    await browser.context.clearCookies();
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(new URL(page.url()).searchParams.get('next')).toBe('/settings');
    await signIn(page);
    await page.getByTestId('save-settings').waitFor();
    expect(new URL(page.url()).pathname).toBe('/settings');
  });

  test('a refused password change names the field and keeps what was typed', async () => {
    await open('/account');
    const current = page.getByRole('textbox', { name: 'Current password', exact: true });
    await current.fill('not-the-password');
    await page.getByRole('textbox', { name: /New password/ }).fill('another-password-456');
    await page.getByRole('textbox', { name: 'Repeat the new password' }).fill('another-password-456');
    await page.getByRole('button', { name: 'Save' }).click();
    // The API's own message, under the field it names (currentPassword).
    await page
      .locator('.mantine-PasswordInput-root', { has: current })
      .getByText('the current password is wrong')
      .waitFor();
    expect(await page.getByRole('textbox', { name: /New password/ }).inputValue()).toBe('another-password-456');
    await screenshot(page, 'account');
  });

  test('a viewer sees the pages without their change buttons', async () => {
    // Something on the pages (else they show their empty states, not their tables).
    await f.createClient({ name: 'erin-viewed', interfaceIds: [(await f.createInterface()).id] });
    const viewer = await f.createUser('viewer');
    const second = await launchBrowser();
    try {
      const view = second.page;
      await view.goto(url('/clients'));
      await view.getByLabel('Username').fill(viewer.username);
      await view.getByRole('textbox', { name: 'Password' }).fill(viewer.password);
      await view.getByRole('button', { name: 'Sign in' }).click();
      await view.getByTestId('clients-table').waitFor();
      expect(await view.getByTestId('new-client').count()).toBe(0);
      await view.getByRole('link', { name: 'Interfaces' }).click();
      await view.getByTestId('interfaces-table').waitFor();
      expect(await view.getByTestId('new-interface').count()).toBe(0);
      await view.getByRole('link', { name: 'Backups' }).click();
      await view.getByText('Only the owner and admins make and list backups.').waitFor();
      expect(second.pageErrors).toEqual([]);
      await expectOnlyListedRoutes(t, second, 3);
    } finally {
      await second.close();
    }
  });

  test('every call the page made is a route GET /api/docs lists', async () => {
    // Every page once (and whatever other tests of this run did in this browser before).
    await open('/overview');
    for (const name of WEB_PAGES) {
      await openSettled(page, url(`/${name}`));
    }
    expect(browser.pageErrors).toEqual([]);
    await expectOnlyListedRoutes(t, browser, WEB_PAGES.length);
  });
});

describe('the web panel under a base path', () => {
  let t: TestPanel;
  let browser: TestBrowser;

  beforeAll(async () => {
    assertWebBuilt();
    t = await startTestPanel({ WARREN_BASE_PATH: '/x7k2' });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  test('deep links and reloads work under the base path; the API keeps its JSON 404s', async () => {
    const page = browser.page;
    const base = `${t.panel.origin}/x7k2`;
    await page.goto(`${base}/system`);
    await signIn(page);
    await page.getByRole('heading', { name: 'System' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/x7k2/system');
    await page.reload();
    await page.getByRole('heading', { name: 'System' }).waitFor();
    await page.getByRole('link', { name: 'API' }).click();
    await page.locator('[data-testid="curl"]').first().waitFor();
    expect(await page.locator('[data-testid="curl"]').first().textContent()).toContain(`${base}/api/`);
    // Sign-out ends the session (POST /api/auth/logout): a reload asks to sign in again.
    await page.getByRole('button', { name: 'Account' }).click();
    await page.getByTestId('sign-out').click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await page.goto(`${base}/system`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/x7k2/sign-in');

    const root = await fetch(`${t.panel.origin}/x7k2`, { redirect: 'manual' });
    expect([root.status, root.headers.get('location')]).toEqual([302, '/x7k2/']);
    const index = await (await fetch(`${base}/clients/some-id`)).text();
    expect(index).toContain('<base href="/x7k2/" data-warren-base>');
    const unknownApi = await fetch(`${base}/api/no-such-route`);
    expect([unknownApi.status, await unknownApi.json()]).toEqual([404, { error: 'not found', field: '' }]);
    const outside = await fetch(`${t.panel.origin}/clients`);
    expect([outside.status, await outside.json()]).toEqual([404, { error: 'not found', field: '' }]);
    // The app's routes are GETs of its pages and files under the base path, none under its API, and
    // kept apart from the API's route table; each page answers with the app.
    const webRoutes = t.panel.webRoutes.filter((route) => route.method !== 'HEAD');
    expect(
      webRoutes.every(
        (route) =>
          route.method === 'GET' &&
          (route.url === '/x7k2' || route.url.startsWith('/x7k2/')) &&
          !route.url.startsWith('/x7k2/api/'),
      ),
    ).toBe(true);
    expect(t.panel.servedRoutes.filter((route) => !route.url.startsWith('/x7k2/api/'))).toEqual([]);
    for (const path of WEB_PATHS) {
      const answer = await fetch(`${base}/${path.replace(':id', '0b7c5a51-0000-4000-8000-000000000000')}`);
      expect([path, answer.status, answer.headers.get('content-type')]).toEqual([
        path,
        200,
        'text/html; charset=utf-8',
      ]);
    }
    const missingAsset = await fetch(`${base}/assets/no-such-file.js`);
    expect([missingAsset.status, await missingAsset.json()]).toEqual([404, { error: 'not found', field: '' }]);
    expect(browser.pageErrors).toEqual([]);
    await expectOnlyListedRoutes(t, browser, 5);
  });
});
