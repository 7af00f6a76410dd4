import { WARREN_VERSION } from '#libs/version/warren-version.js';
import { closeLinks, enrol, helloAs } from '../support/agent-link-client.js';
import { openSettled } from '../support/browser.js';
import { fixtures } from '../support/fixtures.js';
import { fakeAgentWorker } from '../support/node-queue.js';
import { randomSuffix } from '../support/random-suffix.js';
import { webPanel } from '../support/web-panel.js';

/**
 * The Nodes page's "Update agent" action in a real browser: offered only where the agent's
 * version differs from the panel's, asks first, then follows the update to its end (a stand-in
 * agent on the node's queue takes the job, then links with the panel's version), in English and
 * Persian. test/e2e/node-update.spec.ts updates real agents.
 */
describe('Update agent on the Nodes page', () => {
  const { session, url, browserAt } = webPanel();
  const f = fixtures(session);
  afterAll(() => closeLinks());

  test('an older agent: confirm, follow to done; an agent on the panel version: no action', async () => {
    const t = session().t;
    const node = await f.createNode({ name: `old-${randomSuffix(6)}` });
    const { credential } = await enrol(t, node.enrolment!.secret);
    const link = await helloAs(t, credential, '0.0.1');
    const current = await f.createNode({ name: `current-${randomSuffix(6)}` });
    await helloAs(t, (await enrol(t, current.enrolment!.secret)).credential, WARREN_VERSION);

    // Persian first: the action and its question, then cancelled.
    const persian = await browserAt({ language: 'fa' });
    await openSettled(persian.page, url('/nodes'));
    const persianButton = persian.page.locator(`[data-row="${node.name}"]`).getByTestId('node-update');
    expect(await persianButton.textContent()).toBe('به‌روزرسانی عامل');
    await persianButton.click();
    expect(await persian.page.getByRole('dialog').textContent()).toContain('به نسخهٔ پنل');

    const worker = fakeAgentWorker(t, node.id, async () => ({ from: '0.0.1', to: WARREN_VERSION }));
    try {
      const { page } = await browserAt();
      await openSettled(page, url('/nodes'));
      expect(await page.locator(`[data-row="${current.name}"]`).getByTestId('node-update').count()).toBe(0);
      await page.locator(`[data-row="${node.name}"]`).getByTestId('node-update').click();
      const dialog = page.getByRole('dialog');
      expect(await dialog.textContent()).toContain(`from 0.0.1 to the panel's ${WARREN_VERSION}`);
      await dialog.getByTestId('node-update-confirm').click();
      await dialog.locator('[data-testid="node-update-state"][data-state="restarting"]').waitFor();
      // The agent restarted into the panel's version: it links again saying so.
      link.socket.terminate();
      await helloAs(t, credential, WARREN_VERSION);
      const done = dialog.locator('[data-testid="node-update-state"][data-state="done"]');
      await done.waitFor({ timeout: 30_000 });
      expect(await done.textContent()).toContain(`The agent runs ${WARREN_VERSION}`);
    } finally {
      await worker.close();
    }
  });
});
