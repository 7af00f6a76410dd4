import type { Page } from 'playwright-core';
import { WEB_PAGES } from '../../libs/contracts/web-paths.js';
import { assertWebBuilt, launchBrowser, openSettled, type TestBrowser } from '../support/browser.js';
import { fixtures, signedInPanel } from '../support/fixtures.js';
import { OWNER } from '../support/test-panel.js';
import { waitFor } from '../support/wait-for.js';

/**
 * A complete Persian (issue 21, items 5 and 14) in a real browser (Debian's Chromium through
 * playwright-core), at phone size: every page's visible text in Persian digits with no raw enum
 * value, the expiry picked on the Persian calendar, the language and theme switch on the sign-in
 * page, tags in their own case on one line, and one label for a confirm button.
 */
// What the callbacks given to page.evaluate() see: they run in the page, not in Node.
declare const document: any;
declare const window: any;
declare const NodeFilter: any;

const session = signedInPanel();
const f = fixtures(session);
const PHONE = { width: 390, height: 844 };

/** Values the API sends as they are: none may reach a Persian page untranslated. */
const RAW_VALUES = [
  'standard',
  'amnezia',
  // Not direct and blocked: the built-in outbounds' tags, names rules refer to.
  'socks',
  'shadowsocks',
  'active',
  'disabled',
  'expired',
  'exhausted',
  'connected',
  'disconnected',
  'enrolled',
  'unmanaged',
  'running',
  'pending',
  'none',
  'daily',
  'weekly',
  'monthly',
  'embedded',
  'external',
  // Not owner: the test user's name.
  'admin',
  'viewer',
  'tcp',
  'udp',
  'up',
  'down',
  'failed',
  'unknown',
  'ms',
  '5m',
  '1h',
  '6h',
  '24h',
  '48h',
  '7d',
];
const RAW = new RegExp(`(?<![\\w.-])(${RAW_VALUES.join('|')})(?![\\w.-])`);

/**
 * What is Latin by nature and keeps its digits in Persian: addresses (IPv4 with a prefix or a
 * port, host:port), versions, keys, ids and file names. Names are chosen without digits here.
 */
const LATIN_BY_NATURE = [
  /\b\d{1,3}(\.\d{1,3}){3}(\/\d{1,2})?(:\d{1,5})?\b/g,
  /\b[a-z][a-z0-9.-]*:\d{1,5}\b/g,
  /\bv?\d+\.\d+\.\d+[\w.+-]*/g,
  /[A-Za-z0-9+/]{40,}={0,2}/g,
  /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g,
  /\S+\.(tar\.gz|tgz|gz|zip|json|conf)\b/g,
  /\bSOCKS5\b/g,
];

/** The text a person sees: visible text outside code and inputs, one entry per text node. */
async function visibleTexts(page: Page, root = 'body'): Promise<string[]> {
  return page.evaluate((selector) => {
    const texts: string[] = [];
    const walker = document.createTreeWalker(document.querySelector(selector), NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const element = node.parentElement;
      const text = node.textContent.trim();
      if (!text || !element || element.closest('pre, code, script, style, textarea, [aria-hidden="true"]')) continue;
      if (!element.checkVisibility({ visibilityProperty: true, opacityProperty: true })) continue;
      texts.push(text);
    }
    return texts;
  }, root);
}

/** What on the page is not Persian: Latin digits and raw values, each with its text. */
async function nonPersian(page: Page, root = 'body'): Promise<string[]> {
  const found: string[] = [];
  for (const text of await visibleTexts(page, root)) {
    const rest = LATIN_BY_NATURE.reduce((left, pattern) => left.replace(pattern, ' '), text);
    if (/[0-9]/.test(rest)) found.push(`Latin digit in ${JSON.stringify(text)}`);
    const raw = RAW.exec(rest);
    if (raw) found.push(`raw value ${raw[1]} in ${JSON.stringify(text)}`);
  }
  return found;
}

describe('the web panel in Persian', () => {
  const opened: TestBrowser[] = [];
  const url = (path: string) => `${session().t.panel.origin}${session().t.config.basePath}${path}`;
  let clientId = '';

  /** A phone-sized browser signed in as the owner, in Persian unless `language` says otherwise. */
  async function phone(language: 'fa' | 'en' | null = 'fa'): Promise<Page> {
    const browser = await launchBrowser({ viewport: PHONE });
    opened.push(browser);
    const signedIn = await browser.context.request.post(url('/api/auth/login'), {
      data: OWNER,
      headers: { Origin: session().t.panel.origin },
    });
    expect(signedIn.status()).toBe(200);
    if (language) await browser.context.addInitScript(`localStorage.setItem('warren.language', '${language}')`);
    return browser.page;
  }

  beforeAll(async () => {
    assertWebBuilt();
    const { t, token } = session();
    const ok = async (answer: Promise<{ status: number; body: any }>, status = 200) => {
      const got = await answer;
      expect({ status: got.status, body: got.body }).toMatchObject({ status });
      return got.body;
    };
    const remote = await f.createNode({ name: 'north', address: 'vpn.example.com' });
    const tunnel = await f.createInterface({ name: 'tunnel', mode: 'amnezia', endpointHost: 'vpn.example.com' });
    await f.createInterface({ name: 'edge', nodeId: remote.id, endpointHost: 'vpn.example.com' });
    const client = await f.createClient({
      name: 'maryam',
      interfaceIds: [tunnel.id],
      quotaBytes: 5_000_000_000,
      expiresAt: new Date(Date.now() + 40 * 86_400_000).toISOString(),
      groups: ['Team'],
      resetCycle: 'monthly',
      deviceNames: ['phone'],
    });
    clientId = client.id;
    const second = await f.createClient({ name: 'reza', interfaceIds: [tunnel.id], deviceLimit: 0 });
    await ok(f.call('PATCH', `clients/${second.id}`, { enabled: false }));
    await f.createHost({ interfaceId: tunnel.id, name: 'mirror', address: 'alt.example.com' });
    await ok(f.call('POST', 'outbounds', { kind: 'socks', tag: 'MyHop', address: '203.0.113.7:1080' }), 201);
    await ok(f.call('POST', 'routing/rules', { name: 'via-hop', outboundTag: 'MyHop', domains: ['example.com'] }), 201);
    await f.createToken({ name: 'scripts' });
    await ok(t.call('POST', 'backups', { token }), 201);
  });
  afterAll(async () => {
    for (const browser of opened) await browser.close();
  });

  test('every page in Persian at phone size: Persian digits only, no raw value', async () => {
    const page = await phone();
    const problems: string[] = [];
    for (const name of WEB_PAGES) {
      await openSettled(page, url(`/${name}`));
      if (name === 'system') await page.getByTestId('chart').first().waitFor();
      if (name === 'clients') await page.locator('[data-row="maryam"]').first().waitFor();
      if (name === 'backups') await page.getByText('.tar.gz', { exact: false }).first().waitFor();
      // The API page shows the API's own texts (paths, examples) as the API sends them: its frame only.
      const root = name === 'api-docs' ? 'header' : 'body';
      for (const problem of await nonPersian(page, root)) problems.push(`/${name}: ${problem}`);
    }
    // The client's drawer, and the client form with its numbers.
    await openSettled(page, url(`/clients/${clientId}`));
    await page.getByRole('dialog').getByText('maryam').first().waitFor();
    for (const problem of await nonPersian(page)) problems.push(`/clients/{id}: ${problem}`);
    expect(problems).toEqual([]);
  });
});
