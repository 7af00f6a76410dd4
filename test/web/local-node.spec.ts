import { assertWebBuilt, launchBrowser, type TestBrowser } from '../support/browser.js';
import { OWNER, startTestPanel, type TestPanel } from '../support/test-panel.js';
import { waitFor } from '../support/wait-for.js';

/**
 * The local node of a panel whose local agent is off (WARREN_LOCAL_AGENT=off, as every test
 * panel runs) in a real browser: shown as unmanaged, not as an offline node that is behind, and
 * deletable from the nodes page (issue 19 item 18).
 */
let t: TestPanel;
let browser: TestBrowser;

beforeAll(async () => {
  assertWebBuilt();
  t = await startTestPanel();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.stop();
});

test('the nodes page shows the local node unmanaged, and it can be deleted there', async () => {
  const { page } = browser;
  const token = await t.login();
  const local = (await t.call('GET', 'nodes', { token })).body.find((node: { isLocal: boolean }) => node.isLocal);
  await page.goto(`${t.panel.origin}${t.config.basePath}/nodes`);
  await page.getByLabel('Username').fill(OWNER.username);
  await page.getByRole('textbox', { name: 'Password' }).fill(OWNER.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  const row = page.getByRole('row').filter({ has: page.getByRole('cell', { name: local.name, exact: false }) });
  await row.first().waitFor();
  // Agent and sync both say unmanaged: neither "never enrolled" nor "behind".
  expect(await row.getByText('unmanaged', { exact: true }).count()).toBe(2);
  expect(await row.getByText('behind', { exact: true }).count()).toBe(0);
  // No enrolment command for it (the panel enrols its own agent), but a delete.
  expect(await row.getByRole('button', { name: 'Enrolment command' }).count()).toBe(0);
  await row.getByRole('button', { name: 'Delete' }).click();
  await page.getByTestId('confirm').click();
  await waitFor('the local node deleted', async () =>
    (await t.call('GET', 'nodes', { token })).body.every((node: { isLocal: boolean }) => !node.isLocal),
  );
  await row.first().waitFor({ state: 'detached' });
  expect(browser.pageErrors).toEqual([]);
});
