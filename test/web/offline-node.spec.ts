import type { Page } from 'playwright-core';
import { HOST_GAPS } from '#libs/contracts/host-gaps.js';
import { closeLinks, linkAgent } from '../support/agent-link-client.js';
import { assertWebBuilt, PHONE, signedInBrowser, type TestBrowser } from '../support/browser.js';
import { fixtures, type NodeView } from '../support/fixtures.js';
import { systemSample } from '../support/system-sample.js';
import { OWNER, startTestPanel, type TestPanel } from '../support/test-panel.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Nothing looks healthy when it is not (issue 21 item 7): a node whose agent was linked, applied
 * its interface, reported its host and then went away. Everything of it (interfaces, hosts, hops,
 * the overview's row, the nodes list) says offline instead of what it last reported, its last
 * figures say they are stale and how old, the System page shows the node's own card, and the
 * Nodes page lists what its agent said the host lacks.
 */
// What the callbacks given to page.evaluate() see: they run in the page, not in Node.
declare const document: any;
declare const getComputedStyle: any;

let t: TestPanel;
let token = '';
const f = fixtures(() => ({ t, token }));
let node: NodeView;
const opened: TestBrowser[] = [];
const url = (path: string) => `${t.panel.origin}${t.config.basePath}${path}`;

async function browserAt(options: { viewport?: typeof PHONE; language?: 'fa' } = {}): Promise<Page> {
  const browser = await signedInBrowser(url, OWNER, options);
  opened.push(browser);
  return browser.page;
}

beforeAll(async () => {
  assertWebBuilt();
  t = await startTestPanel();
  token = await t.login();
  node = await f.createNode({ name: 'edge-off' });
  const iface = await f.createInterface({ name: 'wg9', nodeId: node.id });
  await f.createHost({ interfaceId: iface.id, name: 'front-off', address: 'front.example.com' });
  expect(
    (
      await f.call('POST', 'outbounds', {
        nodeId: node.id,
        tag: 'hop-off',
        kind: 'socks',
        address: '203.0.113.50:1080',
      })
    ).status,
  ).toBe(201);
  // The agent links, says what its host lacks, applies the interface and reports its host; then it goes.
  const link = await linkAgent(t, node.enrolment!.secret, [HOST_GAPS.nft, HOST_GAPS.redsocks]);
  const revision = await f.revision(node.id);
  link.send({
    type: 'applied',
    result: {
      revision,
      ok: true,
      interfaces: [{ name: 'wg9', state: 'up', driver: 'wireguard-go', peers: 0 }],
      durationMs: 1,
    },
  });
  link.send({ type: 'system', sample: systemSample(Date.now(), { cpu: 37 }) });
  await waitFor('the interface running', async () => {
    const listed = (await f.call('GET', 'interfaces')).body as { id: string; running: boolean }[];
    return listed.find((entry) => entry.id === iface.id)?.running || undefined;
  });
  await waitFor('the sample recorded', async () => {
    const system = (await f.call('GET', 'system')).body as { nodes: { id: string; system: unknown }[] };
    return system.nodes.find((entry) => entry.id === node.id)?.system ?? undefined;
  });
  link.socket.terminate();
  await waitFor('the node offline', async () => (await f.getNode(node.id)).agent.state === 'disconnected' || undefined);
});
afterAll(async () => {
  closeLinks();
  for (const browser of opened) await browser.close();
  await t?.stop();
});

test('its interfaces, hosts and hops say node offline, not applying or running', async () => {
  const page = await browserAt();
  await page.goto(url('/interfaces'));
  const iface = page.locator('[data-testid="interfaces-table"] tr[data-row="wg9"]');
  await iface.locator('[data-state="node-offline"]').waitFor();
  expect(await iface.locator('[data-state="node-offline"]').textContent()).toBe('node offline');
  expect(await iface.getByText('applying').count()).toBe(0);
  expect(await iface.getByText('running').count()).toBe(0);

  await page.goto(url('/hosts'));
  const host = page.getByRole('row').filter({ hasText: 'front-off' });
  await host.locator('[data-state="node-offline"]').waitFor();

  await page.goto(url('/outbounds'));
  await page.getByRole('combobox', { name: 'Node' }).click();
  await page.getByRole('option', { name: 'edge-off' }).click();
  for (const tag of ['direct', 'blocked', 'hop-off']) {
    const row = page.locator(`[data-testid="outbound-row"][data-tag="${tag}"]`);
    await waitFor(
      `${tag} offline`,
      async () => (await row.getByTestId('outbound-state').textContent()) === 'node offline' || undefined,
    );
  }
  // Checking a hop of it answers at once, saying why.
  await page.locator('[data-testid="outbound-row"][data-tag="hop-off"]').getByTestId('check-outbound').click();
  const result = page.getByTestId('probe-result');
  await result.waitFor();
  await result.getByText('Agent not linked').waitFor();
  await result.getByText(/the agent of node edge-off is not linked to the panel/).waitFor();
  expect(opened.flatMap((browser) => browser.pageErrors)).toEqual([]);
});

test('the overview card and its table agree, and the stale CPU figure says so with its age', async () => {
  const page = await browserAt();
  await page.goto(url('/overview'));
  const row = page.locator('[data-testid="overview-nodes"] tr[data-row="edge-off"]');
  await row.locator('[data-state="offline"]').waitFor();
  expect(await row.getByText('in sync', { exact: true }).count()).toBe(0);
  // The card: nobody in sync, one offline (the local node of a test panel is unmanaged).
  await page.getByText('0 / 1', { exact: true }).waitFor();
  await page.getByText('0 behind · 1 offline · 1 unmanaged').waitFor();
  expect(await row.getByText('37%').count()).toBe(1);
  expect(await row.getByTestId('stale').textContent()).toMatch(/^stale, (now|\d+ seconds? ago)$/);
});

test('the nodes list says offline, when it was last seen, and what the host lacks', async () => {
  const page = await browserAt();
  await page.goto(url('/nodes'));
  const row = page.locator('[data-testid="nodes-table"] tr[data-row="edge-off"]');
  await row.locator('[data-state="offline"]').waitFor();
  await row.getByText('disconnected', { exact: true }).waitFor();
  await row.getByText(/^last seen /).waitFor();
  const gaps = row.getByTestId('agent-gaps');
  expect(await gaps.locator('li').allTextContents()).toEqual([
    'nftables (nft) is not installed: NAT for tunnel subnets cannot be set up.',
    'redsocks is not installed: SOCKS5 and HTTP hops cannot carry tunnel traffic.',
  ]);
});

test("the System page for the node shows the node's own state, not the controller's card", async () => {
  const page = await browserAt();
  await page.goto(url('/system'));
  await page.getByText('Panel memory').waitFor();
  await page.getByRole('combobox', { name: 'Host' }).click();
  await page.getByRole('option', { name: 'edge-off' }).click();
  const card = page.getByTestId('node-snapshot');
  await card.waitFor();
  await card.getByText('Node edge-off').waitFor();
  await card.getByText('disconnected', { exact: true }).waitFor();
  await card.getByTestId('stale').waitFor();
  await card.getByTestId('agent-gaps').waitFor();
  // The controller's card (its process memory) is gone for a node.
  expect(await page.getByText('Panel memory').count()).toBe(0);
});

test('on a phone in Persian: offline, stale and the gaps in Persian, nothing cut or sideways', async () => {
  const page = await browserAt({ viewport: PHONE, language: 'fa' });
  await page.goto(url('/nodes'));
  const card = page.locator('[data-testid="nodes-table"] [data-row="edge-off"]');
  await card.locator('[data-state="offline"]').waitFor();
  expect(await card.locator('[data-state="offline"]').textContent()).toBe('آفلاین');
  expect(await card.getByTestId('agent-gaps').locator('li').first().textContent()).toBe(
    'nftables (nft) نصب نیست: NAT برای زیرشبکه‌های تونل برپا نمی‌شود.',
  );
  // Each item keeps the page's right-to-left direction, so its bullet sits in the list's own
  // padding on the right, inside the card (an item turned left to right put it outside, on the left).
  const items = await card
    .getByTestId('agent-gaps')
    .locator('li')
    .evaluateAll((lis: any[]) =>
      lis.map((li) => {
        const list = li.parentElement.getBoundingClientRect();
        return { direction: getComputedStyle(li).direction, room: list.right - li.getBoundingClientRect().right };
      }),
    );
  expect(items.length).toBeGreaterThan(0);
  for (const item of items) {
    expect(item.direction).toBe('rtl');
    expect(item.room).toBeGreaterThan(5);
  }
  // A badge keeps its whole word (no ellipsis), and the page does not scroll sideways.
  const badge = card.locator('[data-state="offline"]');
  expect(await badge.evaluate((element: any) => element.scrollWidth <= element.clientWidth + 1)).toBe(true);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);

  await page.goto(url('/overview'));
  const stale = page.locator('[data-testid="overview-nodes"] [data-row="edge-off"]').getByTestId('stale');
  await stale.waitFor();
  // Persian words and Persian digits (no Latin digit in the age).
  expect(await stale.textContent()).toMatch(/^قدیمی، /);
  expect(await stale.textContent()).not.toMatch(/[0-9]/);

  await page.goto(url('/interfaces'));
  const offline = page.locator('[data-row="wg9"]').locator('[data-state="node-offline"]');
  await offline.waitFor();
  expect(await offline.textContent()).toBe('نود آفلاین');
  expect(opened.flatMap((browser) => browser.pageErrors)).toEqual([]);
});
