import { WARREN_VERSION } from '#libs/version/warren-version.js';
import { confirmDialog, launchBrowser, openSettled } from '../support/browser.js';
import { fixtures } from '../support/fixtures.js';
import { fakeAgentWorker } from '../support/node-queue.js';
import { webPanel } from '../support/web-panel.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Issue 26's web parts in a real browser: the security warnings card on the Overview (both
 * languages), the version on the sign-in page (GET /api/meta), and on Outbounds a hop made from
 * a pasted share link, Check all and the order buttons, and each hop's traffic with its reset
 * buttons (one hop, and all of the node's, each asking first).
 */
describe('security warnings, meta and hop tools in the web panel', () => {
  const { session, url, browserAt } = webPanel();
  const f = fixtures(session);

  test('the Overview lists the warnings in English and in Persian, by code', async () => {
    const { page } = await browserAt();
    await openSettled(page, url('/'));
    const card = page.getByTestId('security-warnings');
    await card.waitFor();
    const unchanged = card.locator('[data-code="owner-password-unchanged"]');
    expect(await unchanged.textContent()).toContain('still uses the password given at installation');
    const persian = await browserAt({ language: 'fa' });
    await openSettled(persian.page, url('/'));
    const code = persian.page.getByTestId('security-warnings').locator('[data-code="owner-two-factor-off"]');
    await code.waitFor();
    expect(await code.textContent()).toContain('ورود دومرحله‌ای');
  });

  test('the private-targets warning names the setting in words, in both languages, and links to Settings', async () => {
    expect((await f.call('PATCH', 'settings', { allowPrivateTargets: true })).status).toBe(200);
    try {
      const { page } = await browserAt();
      await openSettled(page, url('/'));
      const warning = page.getByTestId('security-warnings').locator('[data-code="private-targets-allowed"]');
      await warning.waitFor();
      expect(await warning.textContent()).toContain('“Allow private addresses as outbound and probe targets”');
      const persian = await browserAt({ language: 'fa' });
      await openSettled(persian.page, url('/'));
      const fa = persian.page.getByTestId('security-warnings').locator('[data-code="private-targets-allowed"]');
      await fa.waitFor();
      expect(await fa.textContent()).toContain('«اجازه آدرس‌های خصوصی به عنوان مقصد خروجی و آزمون»');
      for (const text of [await warning.textContent(), await fa.textContent()])
        expect(text).not.toContain('allowPrivateTargets');
      await warning.getByTestId('warning-fix').click();
      await page.waitForURL(/\/settings$/);
      await page.getByText('Allow private addresses as outbound and probe targets').waitFor();
    } finally {
      expect((await f.call('PATCH', 'settings', { allowPrivateTargets: false })).status).toBe(200);
    }
  });

  test('the sign-in page shows the version it read from /api/meta, before anyone signs in', async () => {
    const browser = await launchBrowser();
    try {
      await browser.page.goto(url('/sign-in'));
      const version = browser.page.getByTestId('panel-version');
      await version.waitFor();
      expect(await version.textContent()).toBe(`Warren ${WARREN_VERSION}`);
    } finally {
      await browser.close();
    }
  });

  test('a hop from a pasted link; Check all; the order buttons', async () => {
    const { page } = await browserAt();
    await openSettled(page, url('/outbounds'));
    await page.locator('[data-testid="outbound-row"][data-tag="direct"]').waitFor();
    for (const link of ['socks5://alice:pw@203.0.113.51:1080#pasted-a', 'http://bob:pw@203.0.113.52:3128#pasted-b']) {
      await page.getByTestId('new-outbound').click();
      const dialog = page.getByRole('dialog');
      await dialog.getByTestId('share-link').fill(link);
      await dialog.getByTestId('parse-link').click();
      const tag = dialog.getByLabel('Tag');
      await waitFor('the form filled from the link', async () => (await tag.inputValue()) !== '');
      expect(await dialog.getByLabel('Server (host:port)').inputValue()).toMatch(/^203\.0\.113\.5\d:\d+$/);
      await dialog.getByTestId('outbound-submit').click();
      await page.locator(`[data-testid="outbound-row"][data-tag="${link.split('#')[1]}"]`).waitFor();
    }
    const tags = async () => (await f.call('GET', 'outbounds')).body.map((hop: { tag: string }) => hop.tag);
    expect((await tags()).slice(-2)).toEqual(['pasted-a', 'pasted-b']);
    await page.locator('[data-testid="outbound-row"][data-tag="pasted-b"]').getByTestId('move-up').click();
    await waitFor('pasted-b moved up', async () => (await tags()).slice(-2).join() === 'pasted-b,pasted-a');

    const [local] = await session().t.query<{ id: string }>('select id from nodes where is_local');
    const worker = fakeAgentWorker(session().t, local.id, () =>
      Promise.resolve({
        ok: true,
        latencyMs: 5,
        stages: { dns: null, connect: 5, handshake: null, firstByte: null },
        errorClass: null,
        error: null,
        egressIp: null,
      }),
    );
    try {
      await page.getByTestId('check-all-outbounds').click();
      await page.getByText(/of \d+ hops passed their check/).waitFor();
    } finally {
      await worker.close();
    }
  });

  test("each hop's traffic; Reset traffic on one hop and on all, each confirmed first", async () => {
    const made: string[] = [];
    for (const [tag, address] of [
      ['counted-a', '203.0.113.61:1080'],
      ['counted-b', '203.0.113.62:1080'],
    ]) {
      const created = await f.call('POST', 'outbounds', { tag, kind: 'socks', address });
      expect(created.status).toBe(201);
      made.push(created.body.id);
    }
    // What an agent's counter batches would have added (test/api/outbounds.spec.ts sends them).
    await session().t.query(
      `update outbounds set up_bytes = 1048576, down_bytes = 2097152 where id = any($1::uuid[])`,
      [made],
    );
    const { page } = await browserAt();
    await openSettled(page, url('/outbounds'));
    const row = (tag: string) => page.locator(`[data-testid="outbound-row"][data-tag="${tag}"]`);
    await row('counted-a').getByTestId('outbound-traffic').getByText('↑ 1.0 MiB · ↓ 2.0 MiB').waitFor();
    const traffic = async () =>
      (
        await session().t.query<{ up_bytes: string; down_bytes: string }>(
          'select up_bytes, down_bytes from outbounds where id = any($1::uuid[]) order by tag',
          [made],
        )
      ).map((r) => [Number(r.up_bytes), Number(r.down_bytes)]);

    // One hop: asks first; cancelling changes nothing.
    await row('counted-a').getByTestId('reset-outbound-traffic').click();
    await page.getByRole('dialog').getByText('Zero the traffic counters of counted-a?', { exact: false }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    expect(await traffic()).toEqual([
      [1048576, 2097152],
      [1048576, 2097152],
    ]);
    await row('counted-a').getByTestId('reset-outbound-traffic').click();
    await confirmDialog(page, 'Zero the traffic counters of counted-a?');
    await waitFor('counted-a zeroed', async () => (await traffic())[0][0] === 0);
    expect((await traffic())[1]).toEqual([1048576, 2097152]);
    await row('counted-a').getByTestId('outbound-traffic').getByText('↑ 0 B · ↓ 0 B').waitFor();

    // All of the node's.
    await page.getByTestId('reset-all-traffic').click();
    await confirmDialog(page, 'every outbound of this node');
    await waitFor('every hop zeroed', async () => (await traffic()).every(([up, down]) => up === 0 && down === 0));
    await row('counted-b').getByTestId('outbound-traffic').getByText('↑ 0 B · ↓ 0 B').waitFor();
  });
});
