import { WARREN_VERSION } from '#libs/version/warren-version.js';
import { launchBrowser, openSettled } from '../support/browser.js';
import { fixtures } from '../support/fixtures.js';
import { fakeAgentWorker } from '../support/node-queue.js';
import { webPanel } from '../support/web-panel.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Issue 26's web parts in a real browser: the security warnings card on the Overview (both
 * languages), the version on the sign-in page (GET /api/meta), and on Outbounds a hop made from
 * a pasted share link, Check all and the order buttons.
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
});
