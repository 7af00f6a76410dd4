import { createHash } from 'node:crypto';
import QRCode from 'qrcode';
import { PAGE_TEXT, type PageLocale, type PageText } from './page-text.js';
import type { SubscriptionClient } from './subscriptions.repository.js';

/** One config on the page: its QR code, its text and where to download it. */
export interface PageProfile {
  label: string;
  body: string;
  downloadHref: string;
}

export interface PageView {
  title: string;
  supportContact: string;
  client: Omit<SubscriptionClient, 'id' | 'tokenHash' | 'expiresAfterFirstUseSeconds'> & {
    expiresAfterFirstUseSeconds?: number | null;
  };
  /** Empty for a client that is not active: its configs do not work, so the page shows why instead. */
  devices: { name: string; profiles: PageProfile[] }[];
  zipHref: string | null;
  preview: boolean;
  now: Date;
}

const STYLE = `
:root{color-scheme:light dark;--bg:#f6f7f9;--card:#fff;--fg:#1b1f24;--muted:#5b6470;--line:#dde1e6;--ok:#1a7f37;--bad:#c0392b;--warn:#9a6700;--accent:#1c64d8}
@media (prefers-color-scheme:dark){:root{--bg:#111418;--card:#1b1f24;--fg:#e8eaed;--muted:#a0a8b3;--line:#2e343b;--ok:#3fb950;--bad:#f85149;--warn:#d29922;--accent:#58a6ff}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Tahoma,sans-serif}
main{max-width:720px;margin:0 auto;padding:16px}
header{display:flex;flex-wrap:wrap;align-items:baseline;justify-content:space-between;gap:8px}
h1{font-size:1.4rem;margin:0}
h2{font-size:1.1rem;margin:0 0 8px}
h3{font-size:1rem;margin:0 0 8px;overflow-wrap:anywhere}
nav a{margin-inline-start:8px}
a{color:var(--accent)}
.card{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:16px;margin-top:16px}
.name{color:var(--muted);margin:4px 0 0;overflow-wrap:anywhere}
.badge{display:inline-block;border-radius:999px;padding:2px 10px;font-weight:600;color:#fff}
.active{background:var(--ok)}.disabled,.expired{background:var(--bad)}.exhausted{background:var(--warn)}
.why{margin:8px 0 0}
dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;margin:12px 0 0}
dt{color:var(--muted)}dd{margin:0;overflow-wrap:anywhere}
.bar{display:block;width:100%;height:10px;margin-top:8px}
.profile{border-top:1px solid var(--line);padding-top:12px;margin-top:12px}
.qr{display:block;width:100%;max-width:320px;height:auto;margin:8px auto;background:#fff;border-radius:6px}
.button{display:inline-block;padding:8px 14px;border-radius:8px;background:var(--accent);color:#fff;text-decoration:none;font-weight:600}
details{margin-top:8px}
pre{direction:ltr;text-align:left;white-space:pre-wrap;word-break:break-all;font-size:.8rem;background:var(--bg);padding:8px;border-radius:6px}
.muted{color:var(--muted)}
.ltr{direction:ltr;unicode-bidi:isolate}
`;

/** The page's one stylesheet is inline, allowed by its hash: no other style, and no script at all. */
const STYLE_HASH = createHash('sha256').update(STYLE, 'utf8').digest('base64');

/**
 * The page may run nothing, load nothing, be framed by no one and send nothing anywhere: its QR
 * codes are inline SVG, its one style is allowed by hash, its links are relative to itself.
 */
export const PAGE_SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  // The token is in the URL: no other site may learn it from a Referer.
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'x-robots-tag': 'noindex, nofollow',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'] as const;

export function formatBytes(bytes: number, locale: PageLocale, text: PageText): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const number = FORMATS[locale][unit === 0 ? 'whole' : 'fraction'].format(value);
  return `${number} ${text.bytes[UNITS[unit]]}`;
}

/** A date as the page prints it (the Telegram bot's answers print it the same way). */
export function formatDate(date: Date, locale: PageLocale): string {
  return FORMATS[locale].date.format(date);
}

/** The page's QR code for `text` as a PNG: a chat app shows a photo, not an SVG (the Telegram bot). */
export function qrPng(text: string): Promise<Buffer> {
  return QRCode.toBuffer(text, { type: 'png', errorCorrectionLevel: 'L', margin: 2, scale: 6 });
}

function intlLocale(locale: PageLocale): string {
  return locale === 'fa' ? 'fa-IR' : 'en-GB';
}

/** Intl formatters are slow to make (a good part of a page's CPU when made per request): made once. */
function formatsOf(locale: PageLocale) {
  return {
    whole: new Intl.NumberFormat(intlLocale(locale), { maximumFractionDigits: 0 }),
    fraction: new Intl.NumberFormat(intlLocale(locale), { maximumFractionDigits: 2 }),
    date: new Intl.DateTimeFormat(intlLocale(locale), { dateStyle: 'long', timeStyle: 'short' }),
  };
}
const FORMATS: Record<PageLocale, ReturnType<typeof formatsOf>> = { en: formatsOf('en'), fa: formatsOf('fa') };

function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_m, key: string) => values[key] ?? '');
}

/** A support contact is a link when it is an http(s) URL, else text. */
function supportHtml(contact: string): string {
  if (/^https?:\/\/[^\s"'<>]+$/i.test(contact)) {
    return `<a class="ltr" href="${escapeHtml(contact)}" rel="noopener noreferrer" target="_blank">${escapeHtml(contact)}</a>`;
  }
  return `<span class="ltr">${escapeHtml(contact)}</span>`;
}

/**
 * Drawn QR codes by the SHA-256 of their text, newest last, at most QR_CACHE_SIZE of them.
 * Encoding one config takes milliseconds (most of a page's cost); a customer reloading, or an
 * app and a browser on the same link, draw it once. A key rotation changes the text, so a stale
 * code is never shown; it ages out.
 */
const QR_CACHE_SIZE = 1000;
const qrCache = new Map<string, string>();

async function qrDataUrl(text: string): Promise<string> {
  const key = createHash('sha256').update(text, 'utf8').digest('base64');
  const cached = qrCache.get(key);
  if (cached !== undefined) {
    qrCache.delete(key);
    qrCache.set(key, cached);
    return cached;
  }
  const svg = await QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'L', margin: 2 });
  const url = `data:image/svg+xml;base64,${Buffer.from(svg, 'utf8').toString('base64')}`;
  qrCache.set(key, url);
  if (qrCache.size > QR_CACHE_SIZE) qrCache.delete(qrCache.keys().next().value!);
  return url;
}

/** A length of time in whole days and hours ("30 days", "1 day and 12 hours"). */
function formatDuration(seconds: number, locale: PageLocale, text: PageText): string {
  const numbers = FORMATS[locale].whole;
  const days = Math.floor(seconds / 86_400);
  const hours = Math.round((seconds % 86_400) / 3600);
  const parts = [
    ...(days > 0 ? [fill(days === 1 ? text.day : text.days, { n: numbers.format(days) })] : []),
    ...(hours > 0 || days === 0 ? [fill(hours === 1 ? text.hour : text.hours, { n: numbers.format(hours) })] : []),
  ];
  return parts.join(text.and);
}

/** The head of every public page: its language, direction, title and the one stylesheet. */
function head(title: string, locale: PageLocale): string {
  return `<!doctype html>
<html lang="${locale}" dir="${locale === 'fa' ? 'rtl' : 'ltr'}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>`;
}

export interface DownloadPageView {
  title: string;
  expiresAt: Date;
}

/**
 * What a one-time link shows before it is used: a button that fetches the config (`?download=1`,
 * which spends the link). A chat app's preview fetches this page and spends nothing.
 */
export function renderDownloadPage(view: DownloadPageView, locale: PageLocale): string {
  const text = PAGE_TEXT[locale];
  return `${head(view.title || text.oneTimeTitle, locale)}
<body>
<main>
<header><h1 dir="auto">${escapeHtml(view.title || text.oneTimeTitle)}</h1></header>
<section class="card" id="one-time">
<h2>${escapeHtml(text.oneTimeTitle)}</h2>
<p>${escapeHtml(text.oneTimeNote)}</p>
<p class="muted">${escapeHtml(fill(text.oneTimeExpires, { time: formatDate(view.expiresAt, locale) }))}</p>
<p><a class="button" href="?download=1" download>${escapeHtml(text.oneTimeDownload)}</a></p>
</section>
</main>
</body>
</html>
`;
}

/** Renders the whole page (QR codes included) in one language. */
export async function renderSubscriptionPage(view: PageView, locale: PageLocale): Promise<string> {
  const text = PAGE_TEXT[locale];
  const numbers = FORMATS[locale].whole;
  const { client } = view;
  const bytes = (n: number) => formatBytes(n, locale, text);
  const used =
    client.quotaBytes > 0
      ? fill(text.usedOf, { used: bytes(client.usedBytes), total: bytes(client.quotaBytes) })
      : fill(text.usedOf, { used: bytes(client.usedBytes), total: text.unlimited });
  const share = client.quotaBytes > 0 ? Math.min(100, Math.round((client.usedBytes / client.quotaBytes) * 100)) : 0;
  let expiry = text.never;
  if (!client.expiresAt && client.expiresAfterFirstUseSeconds) {
    // Not "never": a start-on-first-use client's clock starts at its first connection.
    expiry = fill(text.afterFirstUse, { duration: formatDuration(client.expiresAfterFirstUseSeconds, locale, text) });
  } else if (client.expiresAt) {
    const formatted = FORMATS[locale].date.format(client.expiresAt);
    const days = Math.ceil((client.expiresAt.getTime() - view.now.getTime()) / 86_400_000);
    expiry = days > 0 ? `${formatted} (${fill(text.daysLeft, { days: numbers.format(days) })})` : formatted;
  }
  const why = text.why[client.status];
  const devices: string[] = [];
  for (const device of view.devices) {
    const profiles: string[] = [];
    for (const profile of device.profiles) {
      const qr = await qrDataUrl(profile.body);
      profiles.push(`<div class="profile">
<h3 class="ltr">${escapeHtml(profile.label)}</h3>
<img class="qr" alt="QR" src="${qr}">
<p class="muted">${escapeHtml(text.scan)}</p>
<a class="button" href="${escapeHtml(profile.downloadHref)}" download>${escapeHtml(text.downloadConfig)}</a>
<details><summary>${escapeHtml(text.showConfig)}</summary><pre>${escapeHtml(profile.body)}</pre></details>
</div>`);
    }
    devices.push(
      `<section class="card"><h2 dir="auto">${escapeHtml(device.name)}</h2>${profiles.join('\n')}</section>`,
    );
  }
  let configs: string;
  if (client.status !== 'active') configs = `<p class="card muted">${escapeHtml(text.hiddenConfigs)}</p>`;
  else if (devices.length === 0) configs = `<p class="card muted">${escapeHtml(text.noDevices)}</p>`;
  else {
    const zip = view.zipHref
      ? `<p><a class="button" href="${escapeHtml(view.zipHref)}" download>${escapeHtml(text.downloadAll)}</a></p>`
      : '';
    configs = `${zip}${devices.join('\n')}`;
  }
  const other: PageLocale = locale === 'fa' ? 'en' : 'fa';
  const otherName = other === 'fa' ? 'فارسی' : 'English';
  return `${head(view.title, locale)}
<body>
<main>
${view.preview ? `<p class="card muted">${escapeHtml(text.previewNote)}</p>` : ''}
<header>
<h1 dir="auto">${escapeHtml(view.title)}</h1>
<nav aria-label="${escapeHtml(text.language)}"><a href="?lang=${other}" hreflang="${other}" lang="${other}">${otherName}</a></nav>
</header>
<section class="card" id="status">
<p class="name" dir="auto">${escapeHtml(client.name)}</p>
<p>${escapeHtml(text.statusLabel)}: <span class="badge ${client.status}" data-status="${client.status}">${escapeHtml(text.status[client.status])}</span></p>
${why ? `<p class="why" role="alert">${escapeHtml(why)}</p>` : ''}
<dl>
<dt>${escapeHtml(text.usage)}</dt><dd>${escapeHtml(used)}</dd>
<dt>${escapeHtml(text.upload)}</dt><dd>${escapeHtml(bytes(client.upBytes))}</dd>
<dt>${escapeHtml(text.download)}</dt><dd>${escapeHtml(bytes(client.downBytes))}</dd>
<dt>${escapeHtml(text.expiry)}</dt><dd>${escapeHtml(expiry)}</dd>
${view.supportContact ? `<dt>${escapeHtml(text.support)}</dt><dd>${supportHtml(view.supportContact)}</dd>` : ''}
</dl>
${client.quotaBytes > 0 ? `<meter class="bar" min="0" max="100" value="${share}" aria-label="${escapeHtml(text.usage)}"></meter>` : ''}
</section>
${configs}
</main>
</body>
</html>
`;
}
