import { assertWebBuilt, launchBrowser, type TestBrowser } from '../support/browser.js';
import { fixtures } from '../support/fixtures.js';
import { OWNER, startTestPanel, type TestPanel } from '../support/test-panel.js';
import { waitFor } from '../support/wait-for.js';

/**
 * The tunnel controls and sharing in a real browser (docs/web.md): a node's tunnels stopped and
 * started from the nodes page, an interface restarted from the interfaces page (each after a
 * confirmation), and the sharing settings with the owner's list on the Settings page.
 */
let t: TestPanel;
let token: string;
let browser: TestBrowser;

beforeAll(async () => {
  assertWebBuilt();
  t = await startTestPanel();
  token = await t.login();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.stop();
});

const { createNodeWithInterface, getNode, call } = fixtures(() => ({ t, token }));

test('stop and start a node’s tunnels, restart an interface, and set the sharing rule', async () => {
  const { node, iface } = await createNodeWithInterface();
  const { page } = browser;
  await page.goto(`${t.panel.origin}${t.config.basePath}/nodes`);
  await page.getByLabel('Username').fill(OWNER.username);
  await page.getByRole('textbox', { name: 'Password' }).fill(OWNER.password);
  await page.getByRole('button', { name: 'Sign in' }).click();

  const nodeRow = page.locator(`[data-row="${node.name}"]`).first();
  await nodeRow.getByTestId('tunnels-stop').click();
  await page.getByTestId('confirm').click();
  await waitFor('the node stopped', async () => (await getNode(node.id)).tunnelsStopped);
  await nodeRow.getByTestId('tunnels-stopped').waitFor();
  await nodeRow.getByTestId('tunnels-start').click();
  await page.getByTestId('confirm').click();
  await waitFor('the node started', async () => !(await getNode(node.id)).tunnelsStopped);
  await nodeRow.getByTestId('tunnels-stopped').waitFor({ state: 'detached' });

  await page.goto(`${t.panel.origin}${t.config.basePath}/interfaces`);
  const ifaceRow = page.locator(`[data-row="${iface.name}"]`).first();
  await ifaceRow.getByTestId('interface-restart').click();
  await page.getByTestId('confirm').click();
  await waitFor('the interface restart stored', async () => {
    const [row] = await t.query<{ restart_serial: number }>('select restart_serial from interfaces where id = $1', [
      iface.id,
    ]);
    return row.restart_serial === 1;
  });

  await page.goto(`${t.panel.origin}${t.config.basePath}/settings`);
  await page.getByTestId('sharing-card').getByText('No device looks shared in this window.').waitFor();
  await page.getByTestId('sharing-window').fill('30');
  await page.getByTestId('sharing-action').click();
  await page.getByRole('option', { name: 'disable the client' }).click();
  await page.getByTestId('save-settings').click();
  await waitFor('the sharing settings saved', async () => {
    const settings = (await call('GET', 'settings')).body;
    return settings.sharingWindowMinutes === 30 && settings.sharingAction === 'disable';
  });
  expect(browser.pageErrors).toEqual([]);
});
