import { OWNER } from '../support/test-panel.js';
import type { Locator, Page } from 'playwright-core';
import { AMNEZIA_BOUNDS, AMNEZIA_FIELDS, JMAX_MIN_GAP } from '../../libs/contracts/amnezia.js';
import { assertWebBuilt, PHONE, signedInBrowser, type TestBrowser } from '../support/browser.js';
import { errorUnder, expectErrorUnder } from '../support/field-error.js';
import { fixtures, signedInPanel, type InterfaceView } from '../support/fixtures.js';
import { waitFor } from '../support/wait-for.js';

/**
 * The interface form (issue 21, item 6) in a real browser (Debian's Chromium through
 * playwright-core), at phone size: AmneziaWG parameters generated within the API's bounds, every
 * refused one marked under its input at once (in Persian too), the NAT uplink, and a new
 * interface's endpoint taken from its node's address.
 */
const session = signedInPanel();
const f = fixtures(session);

describe('the interface form', () => {
  const opened: TestBrowser[] = [];
  const url = (path: string) => `${session().t.panel.origin}${session().t.config.basePath}${path}`;
  let far = '';

  async function phone(language: 'en' | 'fa'): Promise<Page> {
    const { t } = session();
    const browser = await signedInBrowser((path) => `${t.panel.origin}${t.config.basePath}${path}`, OWNER, {
      viewport: PHONE,
      language,
    });
    opened.push(browser);
    await browser.page.goto(url('/interfaces'));
    await browser.page.locator('main h2').waitFor();
    return browser.page;
  }

  const interfaces = async () => (await f.call('GET', 'interfaces')).body as InterfaceView[];
  const awgInputs = (dialog: Locator) =>
    Object.fromEntries(AMNEZIA_FIELDS.map((field) => [field, dialog.getByTestId(`awg-${field}`)]));
  const numberIn = async (input: Locator) => Number(await input.inputValue());

  beforeAll(async () => {
    assertWebBuilt();
    far = (await f.createNode({ name: 'far', address: '198.51.100.20' })).id;
  });
  afterAll(async () => {
    for (const browser of opened) await browser.close();
  });
  afterEach(() => {
    for (const browser of opened) expect(browser.pageErrors).toEqual([]);
  });

  test('AmneziaWG parameters: generated within bounds, every refusal under its input, NAT and endpoint from the node', async () => {
    const page = await phone('en');
    await page.getByTestId('new-interface').click();
    const dialog = page.getByRole('dialog');
    const endpoint = dialog.locator('input[name="endpointHost"]');
    // The node's address, once the node is picked.
    await dialog.getByRole('combobox', { name: 'Node' }).click();
    await page.getByRole('option', { name: 'far' }).click();
    await waitFor('the endpoint from the node', async () => (await endpoint.inputValue()) === '198.51.100.20');

    await dialog.locator('input[name="name"]').fill('obfs');
    await dialog.getByRole('combobox', { name: 'Mode' }).click();
    await page.getByRole('option', { name: 'AmneziaWG' }).click();
    const awg = awgInputs(dialog);
    await awg.jc!.waitFor();
    // Generated within the API's bounds.
    const shown = Object.fromEntries(
      await Promise.all(AMNEZIA_FIELDS.map(async (field) => [field, await numberIn(awg[field]!)] as const)),
    );
    for (const field of AMNEZIA_FIELDS) {
      expect(shown[field]).toBeGreaterThanOrEqual(AMNEZIA_BOUNDS[field][0]);
      expect(shown[field]).toBeLessThanOrEqual(AMNEZIA_BOUNDS[field][1]);
    }
    expect(shown.jmax! - shown.jmin!).toBeGreaterThanOrEqual(JMAX_MIN_GAP);

    // Three refused at once, each under its own input; nothing created.
    await awg.jc!.fill('9');
    await awg.jmin!.fill('80');
    await awg.jmax!.fill('100');
    await awg.s1!.fill('20');
    await awg.s2!.fill('76');
    await dialog.getByTestId('interface-submit').click();
    await expectErrorUnder(awg.jc!, 'Must be 6 or less.');
    await expectErrorUnder(awg.jmax!, `Must be ${80 + JMAX_MIN_GAP} or more.`);
    await waitFor('the s2 error', async () => /s1 \+ 56/.test((await errorUnder(awg.s2!)) ?? ''));
    expect((await interfaces()).some((entry) => entry.name === 'obfs')).toBe(false);
    // Changing one clears its error alone.
    await awg.jc!.fill('4');
    await expectErrorUnder(awg.jc!, null);
    expect(await errorUnder(awg.jmax!)).toBe(`Must be ${80 + JMAX_MIN_GAP} or more.`);

    // Fresh values, a NAT uplink and an endpoint typed (another node no longer changes it).
    await dialog.getByTestId('awg-generate').click();
    await expectErrorUnder(awg.jmax!, null);
    const sent = Object.fromEntries(
      await Promise.all(AMNEZIA_FIELDS.map(async (field) => [field, await numberIn(awg[field]!)] as const)),
    );
    await dialog.locator('input[name="natInterface"]').fill('eth1');
    await endpoint.fill('obfs.example.com');
    await dialog.getByTestId('interface-submit').click();
    await dialog.waitFor({ state: 'detached' });
    const made = (await interfaces()).find((entry) => entry.name === 'obfs')!;
    expect(made).toMatchObject({
      nodeId: far,
      mode: 'amnezia',
      natInterface: 'eth1',
      endpointHost: 'obfs.example.com',
      awg: sent,
    });

    // Editing shows the stored parameters; a change is stored, NAT cleared is none.
    await page.locator('[data-row="obfs"]').getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('dialog');
    const stored = awgInputs(edit);
    expect(await numberIn(stored.h1!)).toBe(made.awg!.h1);
    const h1 = made.awg!.h1 === 123_456 ? 123_457 : 123_456;
    await stored.h1!.fill(String(h1));
    await edit.locator('input[name="natInterface"]').fill('');
    await edit.getByTestId('interface-submit').click();
    await edit.waitFor({ state: 'detached' });
    const changed = (await interfaces()).find((entry) => entry.id === made.id)!;
    expect(changed.awg).toEqual({ ...sent, h1 });
    expect(changed.natInterface).toBeNull();
  });

  test('in Persian, a refused AmneziaWG parameter says so in Persian digits', async () => {
    const page = await phone('fa');
    await page.getByTestId('new-interface').click();
    const dialog = page.getByRole('dialog');
    await dialog.locator('input[name="name"]').fill('obfsfa');
    await dialog.getByRole('combobox', { name: 'حالت' }).click();
    await page.getByRole('option', { name: 'AmneziaWG' }).click();
    const jc = dialog.getByTestId('awg-jc');
    await jc.fill('2');
    await dialog.getByTestId('interface-submit').click();
    await expectErrorUnder(jc, 'باید ۳ یا بیشتر باشد.');
  });
});
