import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { en } from '../../apps/web/src/locales/en.js';
import { fa } from '../../apps/web/src/locales/fa.js';
import { BUILTIN_OUTBOUNDS } from '../../libs/contracts/builtin-outbounds.js';
import { WEB_PAGES } from '../../libs/contracts/web-paths.js';
import { openSettled, PHONE } from '../support/browser.js';
import { fixtures, type ClientView } from '../support/fixtures.js';
import { LATIN_BY_NATURE, nonPersian, visibleTexts } from '../support/persian-text.js';
import { waitFor } from '../support/wait-for.js';
import { OWNER } from '../support/test-panel.js';
import { webPanel } from '../support/web-panel.js';

/**
 * Every page of the panel walked on a phone (390 px) in Persian, light and dark, as a new
 * operator would, with a few hundred clients (issue 21: "before resolving, walk every page on a
 * phone in Persian"). On each page, the client drawer and the dialogs an operator opens first:
 * nothing wider than the screen and nothing sticking out of it, no text cut short, no Latin digit
 * but in what is Latin by nature, no raw API value, no English word of the English locale, number
 * inputs in Persian digits (and Persian or Latin digits typed read as the number), the audit log's
 * fields named in Persian. `WARREN_WALK_SHOTS=<dir>` keeps a screenshot of each stop.
 */
// What the callbacks given to page.evaluate() see: they run in the page, not in Node.
declare const document: any;
declare const window: any;
declare const getComputedStyle: any;
declare const HTMLInputElement: any;
declare const DOMMatrix: any;

const CLIENTS = 300;

/** Words of the English locale that the Persian one never uses: on a Persian page they are untranslated. */
function englishWords(): Set<string> {
  const words = (tree: unknown, into: Set<string>): Set<string> => {
    if (typeof tree === 'string')
      for (const word of tree.replace(/\{\{[^}]*\}\}/g, ' ').match(/[A-Za-z]{3,}/g) ?? []) into.add(word.toLowerCase());
    else if (tree && typeof tree === 'object') for (const value of Object.values(tree)) words(value, into);
    return into;
  };
  const persian = words(fa, new Set());
  return new Set([...words(en, new Set())].filter((word) => !persian.has(word)));
}
/** Names that happen to be English words: the owner's user name, the built-in outbounds' tags (rules name them). */
const NAMES = new Set<string>([OWNER.username, ...BUILTIN_OUTBOUNDS]);
const ENGLISH = new Set([...englishWords()].filter((word) => !NAMES.has(word)));
/** Host names (vpn.example.com) read as they are, like the addresses of LATIN_BY_NATURE. */
const HOST_NAMES = /\b[a-z0-9-]+(\.[a-z0-9-]+)+\b/gi;

/**
 * Where each of the pager's arrow controls sits beside the page numbers (left or right of them)
 * and the way its icon points, read from the drawn chevron: in a right-to-left page the two agree.
 */
const ARROWS = { first: fa.list.first, previous: fa.list.previous, next: fa.list.next, last: fa.list.last };
async function pagerArrows(page: Page): Promise<Record<'first' | 'previous' | 'next' | 'last', string>> {
  return page.evaluate((labels: Record<string, string>) => {
    const pager = document.querySelector('[data-testid="pager"]');
    const numbers = [...pager.querySelectorAll('button:not([aria-label])')].map((button: any) =>
      button.getBoundingClientRect(),
    );
    const middle = (numbers[0].left + numbers[numbers.length - 1].right) / 2;
    const found: Record<string, string> = {};
    for (const [name, label] of Object.entries(labels)) {
      const control = pager.querySelector(`[aria-label="${label}"]`);
      const box = control.getBoundingClientRect();
      // The chevron's tip: its path drawn in the icon's box, mirrored by the icon's transform.
      const icon = control.querySelector('svg');
      const mirrored = new DOMMatrix(getComputedStyle(icon).transform).a < 0;
      const drawnRight = /^(next|last)$/.test(name) !== mirrored;
      const side = box.left + box.width / 2 < middle ? 'left' : 'right';
      found[name] = side === (drawnRight ? 'right' : 'left') ? side : `${side}, pointing the other way`;
    }
    return found;
  }, ARROWS);
}

/** Untranslated English on the page: a word of the English locale in the visible text. */
async function englishOn(page: Page, root: string): Promise<string[]> {
  const found: string[] = [];
  for (const text of await visibleTexts(page, root)) {
    const rest = [...LATIN_BY_NATURE, HOST_NAMES].reduce((left, pattern) => left.replace(pattern, ' '), text);
    const word = (rest.match(/[A-Za-z]{3,}/g) ?? []).find((candidate) => ENGLISH.has(candidate.toLowerCase()));
    if (word) found.push(`English "${word}" in ${JSON.stringify(text)}`);
  }
  return found;
}

/**
 * What does not fit the phone: the page wider than the screen, an element sticking out of it
 * (outside any box that scrolls or clips it), and text cut short (an ellipsis that hides some of it).
 */
async function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const width = window.innerWidth;
    const name = (element: any) =>
      `${element.tagName.toLowerCase()}${element.className && typeof element.className === 'string' ? '.' + element.className.split(' ')[0] : ''} "${(element.innerText ?? element.value ?? '').slice(0, 40)}"`;
    if (document.documentElement.scrollWidth > width)
      problems.push(`page ${document.documentElement.scrollWidth}px wide on a ${width}px screen`);
    for (const element of document.body.querySelectorAll('*')) {
      if (!element.checkVisibility({ visibilityProperty: true, opacityProperty: true })) continue;
      const box = element.getBoundingClientRect();
      if (box.width === 0 || box.height === 0) continue;
      // Partly out of the screen (a closed drawer waits wholly outside it).
      if ((box.right > width + 1 && box.left < width) || (box.left < -1 && box.right > 0)) {
        let held = false;
        for (let up = element.parentElement; up && up !== document.body; up = up.parentElement)
          if (getComputedStyle(up).overflowX !== 'visible') held = true;
        if (!held) problems.push(`${name(element)} sticks out (${Math.round(box.left)}..${Math.round(box.right)})`);
      }
      const style = getComputedStyle(element);
      if (
        element.tagName !== 'INPUT' &&
        element.tagName !== 'TEXTAREA' &&
        style.textOverflow === 'ellipsis' &&
        element.scrollWidth > element.clientWidth + 1
      )
        problems.push(`${name(element)} cut short`);
    }
    return problems;
  });
}

/** What a number input shows (the screen's text, not what its `value` hands to code) and what it holds. */
async function numberInput(page: Page, selector: string): Promise<{ shown: string; value: string }> {
  return page.locator(selector).evaluate((input: any) => ({
    shown: Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.get!.call(input),
    value: input.value,
  }));
}

/** The text of each line an element's text takes on screen (read character by character). */
async function linesOf(page: Page, selector: string): Promise<string[][]> {
  return page.locator(selector).evaluateAll((elements: any[]) =>
    elements.map((element) => {
      const lines = new Map<number, string>();
      const walker = document.createTreeWalker(element, 4);
      for (let node = walker.nextNode(); node; node = walker.nextNode())
        for (let at = 0; at < node.textContent.length; at++) {
          const range = document.createRange();
          range.setStart(node, at);
          range.setEnd(node, at + 1);
          const box = range.getClientRects()[0];
          if (!box) continue;
          const top = Math.round(box.top);
          lines.set(top, (lines.get(top) ?? '') + node.textContent[at]);
        }
      return [...lines.entries()].sort(([a], [b]) => a - b).map(([, text]) => text.trim());
    }),
  );
}

/** A line that begins with a unit or a closing bracket: a value broken inside ("GiB)" alone, "B)"). */
const BROKEN_START = /^(B|KiB|MiB|GiB|TiB|iB|\)|:|بایت|کیلوبایت|مگابایت|گیگابایت|ترابایت)/;

describe('a walk through every page on a phone in Persian, light and dark', () => {
  const { session, url, browserAt } = webPanel();
  const f = fixtures(session);
  let first: ClientView;
  const shots = process.env.WARREN_WALK_SHOTS;

  beforeAll(async () => {
    const ok = async (answer: Promise<{ status: number; body: any }>, status = 200) => {
      const got = await answer;
      expect({ status: got.status, body: got.body }).toMatchObject({ status });
      return got.body;
    };
    const remote = await f.createNode({ name: 'north', address: 'vpn.example.com' });
    // A /22: room for every client's device.
    const tunnel = await f.createInterface({
      name: 'alborz',
      mode: 'amnezia',
      endpointHost: 'vpn.example.com',
      subnet: '10.90.0.0/22',
    });
    await f.createInterface({ name: 'zagros', nodeId: remote.id, endpointHost: 'edge.example.net' });
    await f.createHost({ interfaceId: tunnel.id, name: 'kooh', address: 'alt.example.com', port: 443 });
    await ok(f.call('POST', 'outbounds', { kind: 'socks', tag: 'MyHop', address: '203.0.113.7:1080' }), 201);
    await ok(f.call('POST', 'routing/rules', { name: 'rah-ma', outboundTag: 'MyHop', domains: ['example.com'] }), 201);
    await f.createToken({ name: 'abzar', readOnly: true, routeGroups: ['clients', 'nodes'] });
    await ok(f.call('POST', 'admins', { username: 'dana', password: 'temporary-for-dana', role: 'admin' }), 201);
    first = await f.createClient({
      name: 'maryam',
      interfaceIds: [tunnel.id],
      quotaBytes: 25_000_000_000,
      expiresAt: new Date(Date.now() + 40 * 86_400_000).toISOString(),
      groups: ['Team'],
      resetCycle: 'monthly',
      deviceNames: ['gooshi', 'lptp'],
      deviceLimit: 3,
    });
    // A few hundred more, some disabled, some with a quota or an expiry, in groups.
    for (let start = 0; start < CLIENTS; start += 10)
      await Promise.all(
        Array.from({ length: Math.min(10, CLIENTS - start) }, async (_, offset) => {
          const n = start + offset;
          const made = await f.createClient({
            name: `mshtri-${String(n).padStart(3, '0')}`,
            interfaceIds: [tunnel.id],
            ...(n % 3 === 0 ? { quotaBytes: 5_000_000_000 } : {}),
            ...(n % 4 === 0 ? { expiresAt: new Date(Date.now() + (n + 1) * 86_400_000).toISOString() } : {}),
            ...(n % 5 === 0 ? { groups: ['Gold'] } : {}),
          });
          if (n % 7 === 0) await ok(f.call('PATCH', `clients/${made.id}`, { enabled: false }));
        }),
      );
    await ok(session().t.call('POST', 'backups', { token: session().token }), 201);
  }, 240_000);

  for (const scheme of ['light', 'dark'] as const)
    test(`every page, the client drawer and the first dialogs (${scheme})`, async () => {
      const { page, pageErrors } = await browserAt({ viewport: PHONE, language: 'fa' });
      await page.context().addInitScript(`localStorage.setItem('mantine-color-scheme-value', '${scheme}')`);
      const problems: string[] = [];
      const check = async (stop: string, root = 'body') => {
        if (shots) {
          mkdirSync(shots, { recursive: true });
          const file = (part: string) => join(shots, `${scheme}-${stop.replace(/\W+/g, '_')}-${part}.png`);
          await page.screenshot({ path: file('top') });
          await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
          await page.screenshot({ path: file('end') });
          await page.evaluate(() => window.scrollTo(0, 0));
        }
        for (const problem of await layoutProblems(page)) problems.push(`${stop}: ${problem}`);
        // The API page shows the API's own texts (paths, summaries) as the API sends them: its frame only.
        for (const problem of await nonPersian(page, root)) problems.push(`${stop}: ${problem}`);
        for (const problem of await englishOn(page, root)) problems.push(`${stop}: ${problem}`);
      };
      for (const name of WEB_PAGES) {
        await openSettled(page, url(`/${name}`));
        expect(await page.evaluate(() => document.documentElement.getAttribute('data-mantine-color-scheme'))).toBe(
          scheme,
        );
        if (name === 'clients') await page.locator('[data-testid="list-card"]').first().waitFor();
        if (name === 'system') await page.getByTestId('chart').first().waitFor();
        if (name === 'backups') await page.getByText('.tar.gz', { exact: false }).first().waitFor();
        if (name === 'audit') await page.locator('[data-testid="audit-list"] [data-entry]').first().waitFor();
        if (name === 'operators') await page.getByTestId('operator-dana').waitFor();
        if (name === 'account') {
          await page.getByTestId('two-factor-state').waitFor();
          // Sessions name the browser as people do, not by its whole User-Agent string.
          await page
            .getByTestId('sessions-table')
            .getByText(/^Chrome \d+ · Linux$/)
            .first()
            .waitFor();
          expect(await page.getByTestId('sessions-table').innerText()).not.toContain('Mozilla');
        }
        await check(`/${name}`, name === 'api-docs' ? 'header' : 'body');
      }

      // An interface's endpoint takes one line of its card: never broken inside host:port.
      await openSettled(page, url('/interfaces'));
      const endpoints = await linesOf(page, '[data-testid="list-card"] bdi[dir="ltr"]:has(wbr)');
      expect(endpoints.length).toBe(2);
      for (const lines of endpoints) expect(lines).toHaveLength(1);

      // The clients list's last page (numbers in the pager), then a client's drawer with its link.
      await openSettled(page, url('/clients?page=13'));
      await page.locator('[data-row="maryam"]').first().waitFor();
      await check('/clients?page=13');
      // The pager's arrows mirrored right to left: "next" and "last" on the left, pointing left.
      expect(await pagerArrows(page)).toEqual({ first: 'right', previous: 'right', next: 'left', last: 'left' });
      await openSettled(page, url(`/clients/${first.id}`));
      await page.getByTestId('subscription-url').waitFor();
      await check('the client drawer', '[role="dialog"]');
      // The usage line on a narrower phone still: it may wrap, only between its parts.
      await page.setViewportSize({ width: 320, height: 740 });
      const [usage] = await linesOf(page, '[data-testid="client-usage"] bdi');
      expect(usage!.filter((line) => BROKEN_START.test(line) || line.length < 3)).toEqual([]);
      await page.setViewportSize(PHONE);

      // The audit log names each changed field in Persian.
      await openSettled(page, url('/audit'));
      const fields = page.locator('[data-testid="audit-changes"] [data-field] > span:first-child');
      await fields.first().waitFor();
      const names = await fields.allInnerTexts();
      expect(
        names.filter((field) => /[A-Za-z]{3,}/.test(field) && !/AmneziaWG|MTU|DNS|BitTorrent/.test(field)),
      ).toEqual([]);

      // New client: its number inputs in Persian digits; Persian and Latin digits both read.
      await openSettled(page, url('/clients'));
      await page.getByTestId('new-client').click();
      const dialog = page.getByRole('dialog');
      await page.getByTestId('client-submit').waitFor();
      await check('new client', '[role="dialog"]');
      const limit = 'input[name="deviceLimit"]';
      // Empty at first (left so, the API's default or the group's applies), its default in Persian digits.
      expect(await numberInput(page, limit)).toEqual({ shown: '', value: '' });
      expect(await dialog.locator(limit).getAttribute('placeholder')).toBe('۱');
      await dialog.locator(limit).fill('۱۲');
      expect(await numberInput(page, limit)).toEqual({ shown: '۱۲', value: '12' });
      await dialog.locator(limit).fill('7');
      expect(await numberInput(page, limit)).toEqual({ shown: '۷', value: '7' });
      await dialog.locator(limit).press('ArrowUp');
      await waitFor('the step up', async () => (await numberInput(page, limit)).shown === '۸');
      await page.keyboard.press('Escape');

      // New interface (AmneziaWG): port, MTU and its parameters in Persian digits.
      await openSettled(page, url('/interfaces'));
      await page.getByTestId('new-interface').click();
      await page.getByRole('dialog').getByRole('combobox', { name: 'حالت' }).click();
      await page.getByRole('option', { name: 'AmneziaWG' }).click();
      await page.getByTestId('awg-fields').waitFor();
      await check('new interface', '[role="dialog"]');
      const port = await numberInput(page, 'input[name="listenPort"]');
      expect(port.shown).toMatch(/^[۰-۹]+$/);
      expect(port.value).toMatch(/^[0-9]+$/);
      await page.keyboard.press('Escape');

      // Add node, and the settings page's numbers.
      await openSettled(page, url('/nodes'));
      await page.getByTestId('new-node').click();
      await page.getByRole('dialog').waitFor();
      await check('add node', '[role="dialog"]');
      await page.keyboard.press('Escape');
      await openSettled(page, url('/settings'));
      const shown = await page
        .locator('main input[inputmode="decimal"], main input[inputmode="numeric"]')
        .evaluateAll((inputs: any[]) =>
          inputs.map((input) => Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.get!.call(input)),
        );
      expect(shown.length).toBeGreaterThan(0);
      expect(shown.filter((text: string) => /[0-9]/.test(text))).toEqual([]);

      expect(problems).toEqual([]);
      expect(pageErrors).toEqual([]);
    }, 300_000);
});
