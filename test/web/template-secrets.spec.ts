import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PHONE, type TestBrowser } from '../support/browser.js';
import { fixtures, type InterfaceView, type NodeView } from '../support/fixtures.js';
import { webPanel } from '../support/web-panel.js';
import { waitFor } from '../support/wait-for.js';

/**
 * The Template page in a real browser (Debian's Chromium through playwright-core): the owner's
 * secrets (an interface's private key, an outbound's password) masked until revealed, with a
 * warning, and copied only on demand; an import that would fail (it names an unknown node,
 * interface or outbound) says so in its preview, before anything is sent.
 */
// What the callbacks given to page.evaluate() see: they run in the page, not in Node.
declare const document: any;
declare const navigator: any;

const PASSWORD = 'socks-secret-password';
const MASK = '••••••••';

describe('the Template page’s secrets and import preview', () => {
  const { session, url, browserAt } = webPanel();
  const f = fixtures(session);
  let node: NodeView;
  let iface: InterfaceView;
  let privateKey = '';
  const viewText = (browser: TestBrowser) => browser.page.getByTestId('template-view').textContent();

  beforeAll(async () => {
    ({ node, iface } = await f.createNodeWithInterface());
    const hop = await f.call('POST', 'outbounds', {
      nodeId: node.id,
      tag: 'socks-secret',
      kind: 'socks',
      address: '203.0.113.7:1080',
      username: 'alice',
      password: PASSWORD,
    });
    expect(hop.status).toBe(201);
    [{ private_key: privateKey }] = await session().t.query<{ private_key: string }>(
      'select private_key from interfaces where id = $1',
      [iface.id],
    );
    expect(privateKey).toMatch(/^[A-Za-z0-9+/]{43}=$/);
  });

  test('private keys and passwords are masked; revealed with a warning, hidden again, copied on demand', async () => {
    const browser = await browserAt();
    const { page } = browser;
    await page.goto(url('/template'));
    const notice = page.getByTestId('template-secrets');
    await notice.waitFor();
    const masked = (await viewText(browser))!;
    expect(masked).toContain(iface.name);
    expect(masked).toContain(`"privateKey": "${MASK}"`);
    expect(masked).toContain(`"password": "${MASK}"`);
    expect(masked).not.toContain(privateKey);
    expect(masked).not.toContain(PASSWORD);
    // Every interface's key (the local node's and this node's) and the hop's password.
    const secrets = (masked.match(/••••••••/g) ?? []).length;
    expect(secrets).toBeGreaterThanOrEqual(2);
    expect(await notice.locator('p').first().textContent()).toBe(
      `${secrets} secrets (private keys and passwords) are hidden, as the Outbounds form keeps them.`,
    );

    await page.getByTestId('reveal-secrets').click();
    await waitFor('the secrets shown', async () => (await viewText(browser))!.includes(privateKey));
    expect(await viewText(browser)).toContain(`"password": "${PASSWORD}"`);
    expect(await notice.getAttribute('data-revealed')).toBe('true');
    expect(await notice.locator('p').first().textContent()).toMatch(/secrets are shown: anyone who sees this screen/);
    await page.getByTestId('reveal-secrets').click();
    await waitFor('the secrets hidden again', async () => !(await viewText(browser))!.includes(privateKey));

    // Copy with secrets: the whole template, secrets included, and a toast saying so.
    await page.getByTestId('copy-with-secrets').click();
    await page.getByText('Copied with its secrets: paste it only where it stays private.').waitFor();
    const copied = JSON.parse(await page.evaluate(() => navigator.clipboard.readText())) as {
      interfaces: { name: string; privateKey: string }[];
      outbounds: { tag: string; password: string }[];
    };
    expect(copied.interfaces.find((row) => row.name === iface.name)?.privateKey).toBe(privateKey);
    expect(copied.outbounds.find((row) => row.tag === 'socks-secret')?.password).toBe(PASSWORD);
    expect(await viewText(browser)).not.toContain(PASSWORD);
  });

  test('an admin’s template holds no secrets: nothing to reveal', async () => {
    const admin = await f.createUser('admin');
    const browser = await browserAt({}, admin);
    await browser.page.goto(url('/template'));
    await browser.page.getByTestId('template-view').getByText(iface.name).first().waitFor();
    expect(await browser.page.getByTestId('template-secrets').count()).toBe(0);
    expect(await viewText(browser)).not.toContain(MASK);
  });

  test('on a phone in Persian: the warning in Persian, nothing wider than the screen', async () => {
    const browser = await browserAt({ viewport: PHONE, language: 'fa' });
    await browser.page.goto(url('/template'));
    await browser.page.getByTestId('template-secrets').getByText('نمایش رازها').click();
    await browser.page
      .getByTestId('template-secrets')
      .getByText(/راز نمایش داده شده/)
      .waitFor();
    const [scroll, client] = await browser.page.evaluate(() => [
      document.documentElement.scrollWidth,
      document.documentElement.clientWidth,
    ]);
    expect(scroll).toBeLessThanOrEqual(client);
  });

  test('an import naming an unknown node, interface or outbound says it would fail before anything is sent', async () => {
    const template = {
      interfaces: [{ node: 'no-such-node', name: 'wg9' }],
      hosts: [{ node: node.name, interface: 'wg-missing', name: 'h', address: '203.0.113.9' }],
      routing: [{ node: node.name, rules: [{ name: 'r', outboundTag: 'ghost', domains: ['example.com'] }] }],
    };
    const file = join(mkdtempSync(join(tmpdir(), 'warren-template-')), 'broken.json');
    writeFileSync(file, JSON.stringify(template));
    const browser = await browserAt();
    const { page } = browser;
    await page.goto(url('/template'));
    await page.getByTestId('template-view').waitFor();
    await page.locator('input[type="file"]').setInputFiles(file);
    const problems = page.getByTestId('preview-problems');
    await problems.waitFor();
    expect(await problems.getByText('This import would fail').count()).toBe(1);
    expect(await page.getByTestId('preview-problem').allTextContents()).toEqual([
      'there is no node named “no-such-node” interfaces.0.node',
      `node “${node.name}” has no interface “wg-missing” hosts.0.interface`,
      `node “${node.name}” has no outbound tagged “ghost” routing.0.rules.0.outboundTag`,
    ]);
    expect(await page.getByTestId('confirm-import').isDisabled()).toBe(true);
    expect(browser.requests.filter((request) => request.method === 'PUT')).toEqual([]);

    // The API refuses the same file on the first of them, writing nothing.
    const refused = await f.call('PUT', 'template', template);
    expect(refused.status).toBe(400);
    expect(refused.body.field).toBe('interfaces.0.node');
  });
});
