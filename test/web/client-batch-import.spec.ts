import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixtures } from '../support/fixtures.js';
import { wgEasyFile } from '../support/old-panels.js';
import { webPanel } from '../support/web-panel.js';

/**
 * The clients page's batch-create dialog, import wizard and export button in a real browser: a
 * batch made and reported, a wg-easy file previewed with its refused row and reason (nothing to
 * apply), the good file applied, and the export downloaded as JSON that lists them.
 */
const web = webPanel();
const f = fixtures(() => web.session());
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'warren-web-import-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('a batch of clients from the dialog, with its result', async () => {
  const iface = await f.createInterface({ subnet: '10.91.0.0/24' });
  const { page } = await web.browserAt();
  await page.goto(web.url('/clients'));
  await page.getByTestId('clients-batch').click();
  const dialog = page.getByRole('dialog');
  await dialog.getByTestId('batch-prefix').fill('web-');
  await dialog.getByTestId('batch-count').fill('25');
  await dialog.getByLabel('Digits (zero-padded)').fill('2');
  await dialog.getByTestId('batch-names').getByText('web-25').waitFor();
  await dialog.locator('.mantine-MultiSelect-input').click();
  await page.getByRole('option', { name: iface.name }).click();
  await dialog.getByTestId('batch-submit').click();
  const result = dialog.getByTestId('batch-result');
  await result.getByText('Created 25 clients:').waitFor();
  expect(await result.textContent()).toContain('web-01 … web-25');
  expect(await f.count('clients')).toBe(25);
  await dialog.getByTestId('batch-close').click();
  await page.getByText('25 clients').waitFor();

  // The same names again: refused, the reason under the prefix, nothing made.
  await page.getByTestId('clients-batch').click();
  await dialog.getByTestId('batch-prefix').fill('web-');
  await dialog.getByTestId('batch-count').fill('3');
  await dialog.getByLabel('Digits (zero-padded)').fill('2');
  await dialog.locator('.mantine-MultiSelect-input').click();
  await page.getByRole('option', { name: iface.name }).click();
  await dialog.getByTestId('batch-submit').click();
  await dialog.getByText('a client named "web-01" already exists', { exact: false }).waitFor();
  expect(await f.count('clients')).toBe(25);
});

test('the import wizard: a preview with a refused row and its reason, then a good file applied; the export lists them', async () => {
  const iface = await f.createInterface({ subnet: '10.92.0.0/24' });
  const good = wgEasyFile(3, '10.92', { namePrefix: 'easy-', first: 98 });
  const bad = structuredClone(good);
  Object.values(bad.clients)[2].address = '10.200.0.9';
  writeFileSync(join(dir, 'bad-wg0.json'), JSON.stringify(bad));
  writeFileSync(join(dir, 'wg0.json'), JSON.stringify(good));

  const { page } = await web.browserAt();
  await page.goto(web.url('/clients'));
  await page.getByTestId('clients-import').click();
  const dialog = page.getByRole('dialog');
  await dialog.locator('input[type="file"]').setInputFiles(join(dir, 'bad-wg0.json'));
  await dialog.getByTestId('import-interface').click();
  await page.getByRole('option', { name: iface.name }).click();
  await dialog.getByTestId('import-preview').click();
  const summary = dialog.getByTestId('import-summary');
  await summary.getByText('1 refused').waitFor();
  expect(await summary.textContent()).toContain('2 to create');
  const refused = dialog.locator('tr[data-action="refuse"]');
  expect(await refused.textContent()).toContain(
    "rows[3].address: 10.200.0.9 is not an address of the interface's subnet 10.92.0.0/24",
  );
  await dialog.getByTestId('import-blocked').waitFor();
  expect(await dialog.getByTestId('import-apply').isDisabled()).toBe(true);

  await dialog.getByTestId('import-back').click();
  await dialog.locator('input[type="file"]').setInputFiles(join(dir, 'wg0.json'));
  await dialog.getByTestId('import-preview').click();
  await dialog.getByTestId('import-summary').getByText('3 to create').waitFor();
  await dialog.getByTestId('import-apply').click();
  await dialog.getByTestId('import-done').getByText('Imported: 3 created, 0 updated.').waitFor();
  await dialog.getByTestId('import-close').click();

  await page.getByTestId('clients-export').click();
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('clients-export-json').click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^warren-clients-\d{4}-\d\d-\d\d\.json$/);
  const exported = JSON.parse(readFileSync((await download.path())!, 'utf8'));
  const client = Object.values(good.clients)[0];
  const row = exported.clients.find((entry: { name: string }) => entry.name === client.name);
  // The owner's session: keys included, as they were in wg-easy.
  expect(row.devices[0].accounts[0]).toMatchObject({ ip: client.address, privateKey: client.privateKey });
});
