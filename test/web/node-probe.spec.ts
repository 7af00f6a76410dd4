import { closeLinks, enrol, helloAs } from '../support/agent-link-client.js';
import { openSettled } from '../support/browser.js';
import { fixtures } from '../support/fixtures.js';
import { fakeAgentWorker } from '../support/node-queue.js';
import { nodeProbeAnswer } from '../support/node-probe.js';
import { randomSuffix } from '../support/random-suffix.js';
import { webPanel } from '../support/web-panel.js';

/**
 * The Nodes page's Probe button in a real browser: the answer of a linked agent (a stand-in on
 * the node's queue) with its version-skew warning, in English and Persian, and the panel's
 * refusal for a node whose agent never linked.
 */
describe('Probe on the Nodes page', () => {
  const { session, url, browserAt } = webPanel();
  const f = fixtures(session);
  afterAll(() => closeLinks());

  test('an older agent: the facts and the skew warning, in both languages; an unlinked node: the refusal', async () => {
    const t = session().t;
    const node = await f.createNode({ name: `probed-${randomSuffix(6)}` });
    const { credential } = await enrol(t, node.enrolment!.secret);
    await helloAs(t, credential, '0.0.1');
    const worker = fakeAgentWorker(t, node.id, async () => nodeProbeAnswer('0.0.1'));
    try {
      const { page } = await browserAt();
      await openSettled(page, url('/nodes'));
      const row = page.locator(`[data-row="${node.name}"]`);
      await row.getByTestId('node-probe').click();
      const dialog = page.getByRole('dialog');
      const answer = dialog.getByTestId('node-probe-answer');
      await answer.waitFor();
      const text = (await answer.textContent()) ?? '';
      expect(text).toContain('6.8.0-test');
      expect(text).toContain('wireguard-tools v1.0.20210914');
      expect(text).toContain('nftables v1.0.9');
      expect(text).toContain('wireguard-go (userspace)');
      expect(await dialog.getByTestId('node-probe-skew').textContent()).toContain('older than the panel');

      const persian = await browserAt({ language: 'fa' });
      await openSettled(persian.page, url('/nodes'));
      await persian.page.locator(`[data-row="${node.name}"]`).getByTestId('node-probe').click();
      const skew = persian.page.getByRole('dialog').getByTestId('node-probe-skew');
      await skew.waitFor();
      expect(await skew.textContent()).toContain('قدیمی‌تر');
    } finally {
      await worker.close();
    }

    const unlinked = await f.createNode({ name: `unlinked-${randomSuffix(6)}` });
    const { page } = await browserAt();
    await openSettled(page, url('/nodes'));
    await page.locator(`[data-row="${unlinked.name}"]`).getByTestId('node-probe').click();
    const refusal = page.getByRole('dialog').getByTestId('node-probe-error');
    await refusal.waitFor();
    expect(await refusal.textContent()).toContain(`the agent of node ${unlinked.id}`);
  });
});
