import type { Locator, Page } from 'playwright-core';
import { PHONE } from '../support/browser.js';
import { fixtures, type ClientView } from '../support/fixtures.js';
import { webPanel } from '../support/web-panel.js';
import { waitFor } from '../support/wait-for.js';

// Code run in the page (page.evaluate) sees the page's document.
declare const document: any;

/**
 * What a new user's trial on a 390 px phone in Persian found, in a real browser: range pickers run
 * past the screen's edge, traffic values read out of order in a right-to-left line, and sizes named
 * in Latin units ("MiB") on a Persian page.
 */
describe('a phone in Persian: ranges whole, values in order, sizes in Persian', () => {
  const { session, url, browserAt } = webPanel();
  const f = fixtures(session);
  let client: ClientView;
  let ifaceId: string;

  beforeAll(async () => {
    const { iface } = await f.createNodeWithInterface();
    ifaceId = iface.id;
    client = await f.createClient({ name: 'phone-fixes', interfaceIds: [iface.id] });
  });

  /** Each range's box, once the picker shows, with the page's width. */
  async function rangesOf(page: Page, testId: string) {
    const picker = page.getByTestId(testId).first();
    await picker.locator('label').first().waitFor();
    const boxes = await picker.locator('label').evaluateAll((labels: any[]) =>
      labels.map((label) => {
        const box = label.getBoundingClientRect();
        return { text: label.textContent, left: box.left, right: box.right, width: box.width, full: label.scrollWidth };
      }),
    );
    const width = await page.evaluate(() => document.documentElement.clientWidth);
    return { boxes, width };
  }

  function expectWhole({ boxes, width }: Awaited<ReturnType<typeof rangesOf>>, count: number) {
    expect(boxes).toHaveLength(count);
    for (const box of boxes) {
      expect({ text: box.text, within: box.left >= 0 && box.right <= width }).toEqual({ text: box.text, within: true });
      // Not cut inside either ("۴۸ س…"): the label shows all its text.
      expect({ text: box.text, cut: box.full > Math.ceil(box.width) }).toEqual({ text: box.text, cut: false });
    }
  }

  test('every range of the overview, the drawer and the system page shows whole within the screen', async () => {
    const { page } = await browserAt({ viewport: PHONE, language: 'fa' });
    await page.goto(url('/'));
    expectWhole(await rangesOf(page, 'usage-range'), 8);
    expect((await rangesOf(page, 'usage-range')).boxes.map((box) => box.text)).toContain('۲ سال');

    await page.goto(url(`/clients/${client.id}`));
    const drawer = page.getByRole('dialog');
    await drawer.getByTestId('usage-range').locator('label').first().waitFor();
    expectWhole(await rangesOf(page, 'usage-range'), 8);
    await drawer.getByTestId('usage-range').getByText('۹۰ روز', { exact: true }).click();
    await waitFor(
      'the 90-day range picked',
      async () => await drawer.getByTestId('usage-range').locator('input[value="90d"]').isChecked(),
    );

    await page.goto(url('/system'));
    expectWhole(await rangesOf(page, 'range'), 6);
  });

  /** Where an element's first character stands on screen. */
  async function firstCharacter(element: Locator) {
    return element.evaluate((node: any) => {
      const walker = document.createTreeWalker(node, 4);
      const text = walker.nextNode()!;
      const range = document.createRange();
      range.setStart(text, 0);
      range.setEnd(text, 1);
      const box = range.getBoundingClientRect();
      return { left: box.left, right: box.right, top: box.top, bottom: box.bottom };
    });
  }

  test('each traffic value is its own isolate, read in order right to left', async () => {
    const { page } = await browserAt({ viewport: PHONE, language: 'fa' });
    await page.goto(url(`/clients/${client.id}`));
    const drawer = page.getByRole('dialog');
    const total = drawer.getByTestId('usage-total');
    await total.waitFor();
    const values = total.locator('bdi[dir="rtl"]');
    expect(await values.allTextContents()).toEqual(['↓ ۰\u00a0بایت', '↑ ۰\u00a0بایت']);
    // Right to left: "↓ …" is read first, so it stands to the right of "↑ …" (or on the line above).
    const [down, up] = [await firstCharacter(values.nth(0)), await firstCharacter(values.nth(1))];
    expect(down.left >= up.right - 1 || down.bottom <= up.top + 1).toBe(true);

    const usage = drawer.getByTestId('client-usage').locator('td').nth(1).locator('bdi[dir="rtl"]');
    expect(await usage.allTextContents()).toEqual(['۰\u00a0بایت / ∞', '(↑ ۰\u00a0بایت ↓ ۰\u00a0بایت)']);
    // Each piece's first character: "۰" of "۰ بایت / ∞" before "(" of "(↑ …", on one line or the next.
    const [used, split] = [await firstCharacter(usage.nth(0)), await firstCharacter(usage.nth(1))];
    expect(used.left >= split.right - 1 || used.bottom <= split.top + 1).toBe(true);
    // Inside "۰ بایت / ∞" the used size stands right of the quota, its unit left of its number.
    const [zero, unit, infinity] = await usage.nth(0).evaluate((element: any) => {
      const node = element.firstChild;
      const x = (at: number) => {
        const range = document.createRange();
        range.setStart(node, at);
        range.setEnd(node, at + 1);
        return range.getBoundingClientRect().left;
      };
      const text: string = node.textContent;
      return [x(text.indexOf('۰')), x(text.indexOf('ب')), x(text.indexOf('∞'))];
    });
    expect(zero).toBeGreaterThan(unit);
    expect(unit).toBeGreaterThan(infinity);
  });

  test('sizes name their unit in Persian: no Latin unit on the page', async () => {
    const { page } = await browserAt({ viewport: PHONE, language: 'fa' });
    await page.goto(url(`/clients/${client.id}`));
    const drawer = page.getByRole('dialog');
    await drawer.getByTestId('usage-total').waitFor();
    for (const text of [
      await drawer.getByTestId('usage-total').textContent(),
      await drawer.getByTestId('client-usage').textContent(),
    ])
      expect(text).not.toMatch(/\b(B|KiB|MiB|GiB|TiB)\b/);
    expect(await drawer.getByTestId('client-usage').textContent()).toContain('بایت');

    await page.goto(url('/'));
    const overview = page.getByTestId('usage-total');
    await overview.waitFor();
    expect(await page.locator('body').textContent()).not.toMatch(/[0-9۰-۹]\s?(B|KiB|MiB|GiB|TiB)(\/s)?\b/);
  });

  test('the drawer names the interface’s key as the server’s; the audit log shows lists as values, not JSON', async () => {
    const { page } = await browserAt({ viewport: PHONE, language: 'fa' });
    await page.goto(url(`/clients/${client.id}`));
    const key = page.getByRole('dialog').getByTestId('client-interface');
    expect(await key.getByTestId('interface-key-label').textContent()).toBe('کلید عمومی سرور');

    expect((await f.call('PATCH', `interfaces/${ifaceId}`, { dns: ['1.1.1.1', '8.8.8.8'] })).status).toBe(200);
    await page.goto(url('/audit'));
    const dns = page.locator('[data-testid="audit-changes"] [data-field="dns"]').first();
    await dns.waitFor();
    expect(await dns.textContent()).toMatch(/^DNS: .+ ← 1\.1\.1\.1، 8\.8\.8\.8$/);
    // The client's interfaces by name, not a JSON list of ids.
    const ids = page.locator('[data-testid="audit-changes"] [data-field="interfaceIds"]').first();
    expect(await ids.textContent()).not.toMatch(/[[\]"]/);
  });
});
