import type { Page } from 'playwright-core';

/**
 * What a person reads on a Persian page, and what on it is not Persian: Latin digits outside what
 * is Latin by nature, and the API's raw values (test/web/persian.spec.ts, phone-persian-walk.spec.ts).
 */
// What the callbacks given to page.evaluate() see: they run in the page, not in Node.
declare const document: any;
declare const NodeFilter: any;

/** Values the API sends as they are: none may reach a Persian page untranslated. */
export const RAW_VALUES = [
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
export const RAW = new RegExp(`(?<![\\w.-])(${RAW_VALUES.join('|')})(?![\\w.-])`);

/**
 * What is Latin by nature and keeps its digits in Persian: addresses (IPv4 with a prefix or a
 * port, host:port), versions, keys, ids and file names. Names are chosen without digits here.
 */
export const LATIN_BY_NATURE = [
  /\b\d{1,3}(\.\d{1,3}){3}(\/\d{1,2})?(:\d{1,5})?\b/g,
  /\b[a-z][a-z0-9.-]*:\d{1,5}\b/g,
  /\bv?\d+\.\d+\.\d+[\w.+-]*/g,
  /[A-Za-z0-9+/]{40,}={0,2}/g,
  /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g,
  /\S+\.(tar\.gz|tgz|gz|zip|json|conf)\b/g,
  // Identifiers: a Latin word with digits (wg0, eth0, device-1, SOCKS5, AmneziaWG's S1 and H4).
  /\b[A-Za-z][A-Za-z_-]*\d+\b/g,
];

/** The text a person sees: visible text outside code and inputs, one entry per text node. */
export async function visibleTexts(page: Page, root = 'body'): Promise<string[]> {
  return page.evaluate((selector) => {
    const texts: string[] = [];
    const walker = document.createTreeWalker(document.querySelector(selector), NodeFilter.SHOW_TEXT);
    // A value isolated left to right (an address, a size) is read as one, whatever its parts.
    const isolated = new Set();
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const whole = node.parentElement?.closest('bdi[dir="ltr"]');
      if (whole && isolated.has(whole)) continue;
      if (whole) isolated.add(whole);
      const element = whole ?? node.parentElement;
      const text = (whole ?? node).textContent.trim();
      if (!text || !element || element.closest('pre, code, script, style, textarea, [aria-hidden="true"]')) continue;
      if (!element.checkVisibility({ visibilityProperty: true, opacityProperty: true })) continue;
      texts.push(text);
    }
    return texts;
  }, root);
}

/** What on the page is not Persian: Latin digits and raw values, each with its text. */
export async function nonPersian(page: Page, root = 'body'): Promise<string[]> {
  const found: string[] = [];
  for (const text of await visibleTexts(page, root)) {
    const rest = LATIN_BY_NATURE.reduce((left, pattern) => left.replace(pattern, ' '), text);
    if (/[0-9]/.test(rest)) found.push(`Latin digit in ${JSON.stringify(text)}`);
    const raw = RAW.exec(rest);
    if (raw) found.push(`raw value ${raw[1]} in ${JSON.stringify(text)}`);
  }
  return found;
}
