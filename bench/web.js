// The web panel at 100,000 clients, in the real browser (Debian's Chromium through playwright-core):
// the panel in a child process exactly as `npm start` runs it, serving the built app (dist/web);
// 100,000 clients inserted with SQL as POST /api/clients makes them. Measured: the JavaScript and
// CSS the first load transfers (encoded bytes on the wire), the time from navigation to the
// clients page showing its first page (cold: a fresh browser profile; warm: cached app files),
// and from typing a search to its result on the page (the debounce included).
//
// Settings (environment): BENCH_CLIENTS (100000), BENCH_ROUNDS (7), BENCH_WRITE=0 (print only),
// DATABASE_URL / REDIS_URL (the machine's servers; a throw-away database is created and dropped),
// WARREN_TEST_CHROMIUM (/usr/bin/chromium).
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { ROOT_DIR } from './lib/child.js';
import { cleanupScope } from './lib/cleanup.js';
import { codeVersion } from './lib/code-version.js';
import { postgresVersion } from './lib/database.js';
import { describeMachine } from './lib/machine.js';
import { apiClient, BENCH_OWNER, reportPanelEnd, signIn } from './lib/panel-process.js';
import { fixed, markdownTable, ms, textTable } from './lib/report.js';
import { benchDatabaseClient, benchInterface, publishReport, startBenchPanel } from './lib/bench-panel.js';
import { envNumber } from './lib/settings.js';
import { insertClients } from './lib/sql-seed.js';

export const ID = 'web-100k';
export const TITLE = 'Web panel: the clients page at 100,000 clients, in the browser';

/** The smoke size (`npm run bench:smoke`, CI): every phase once, in seconds; nothing recorded. */
export const SMOKE = { BENCH_CLIENTS: '100', BENCH_ROUNDS: '1' };

const TARGETS = { firstPageMs: 1000, searchMs: 300, initialKb: 400 };
const SUBNET = '10.64.0.0/14';
const CHROMIUM = process.env.WARREN_TEST_CHROMIUM ?? '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];

export function settingsFromEnv() {
  return { clients: envNumber('BENCH_CLIENTS', 100_000, 100), rounds: envNumber('BENCH_ROUNDS', 7, 1) };
}

/**
 * Timestamps taken inside the page (performance.now(), from the navigation's start), so the
 * figures are what a person sees, not Playwright's polling: when the clients table first has a
 * row, when a form is submitted, when a search is typed and when its one result is on screen.
 */
function installMarks() {
  const rows = () => document.querySelectorAll('[data-testid="clients-table"] tbody tr');
  const observer = new MutationObserver(() => {
    const now = performance.now();
    const found = rows();
    if (window.__rowAt === undefined && found.length > 0) window.__rowAt = now;
    if (
      window.__wanted &&
      window.__resultAt === undefined &&
      found.length === 1 &&
      found[0].textContent.includes(window.__wanted)
    )
      window.__resultAt = now;
  });
  document.addEventListener('DOMContentLoaded', () =>
    observer.observe(document.body, { childList: true, subtree: true, characterData: true }),
  );
  document.addEventListener('submit', () => (window.__submitAt = performance.now()), true);
  document.addEventListener(
    'input',
    (event) => {
      if (
        event.target?.closest?.('[data-testid="client-search"]') ||
        event.target?.getAttribute?.('data-testid') === 'client-search'
      )
        window.__typedAt = performance.now();
    },
    true,
  );
}

async function launch(scope) {
  const profile = mkdtempSync(join(tmpdir(), 'warren-bench-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1280, height: 800 },
  });
  scope.add('browser', async () => {
    await context.close().catch(() => undefined);
    rmSync(profile, { recursive: true, force: true });
  });
  const page = context.pages()[0] ?? (await context.newPage());
  await page.addInitScript(installMarks);
  return { context, page };
}

/** Bytes on the wire (encoded bodies) of the scripts and stylesheets a navigation loads. */
function recordTransfers(page) {
  const transfers = [];
  const onFinished = async (request) => {
    const type = request.resourceType();
    if (type !== 'script' && type !== 'stylesheet') return;
    const sizes = await request.sizes().catch(() => undefined);
    transfers.push({ type, url: request.url(), bytes: sizes?.responseBodySize ?? 0 });
  };
  page.on('requestfinished', onFinished);
  return { transfers, stop: () => page.off('requestfinished', onFinished) };
}

export async function run({ writeDoc = true, docFile, command } = {}) {
  const settings = settingsFromEnv();
  if (!existsSync(join(ROOT_DIR, 'dist/web/index.html')))
    throw new Error('no web panel build: run `npm run build` first');
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} not found: run test/prepare-host.sh`);
  const machine = describeMachine();
  const scope = cleanupScope('the web run (browser, panel, database)');
  let panel;
  try {
    let database;
    ({ panel, database } = await startBenchPanel(scope, { tag: 'web', prefix: 'wbw' }));
    const api = apiClient(panel, 4);
    scope.add('http agent', () => api.close());
    await signIn(api);
    const iface = await benchInterface(api, { listenPort: 51998, subnet: SUBNET });
    const db = await benchDatabaseClient(scope, database);
    for (let start = 0; start < settings.clients; start += 2000) {
      const specs = [];
      for (let i = start; i < Math.min(settings.clients, start + 2000); i++)
        specs.push({ name: `client-${String(i).padStart(6, '0')}`, deviceLimit: 1 + (i % 3) });
      await insertClients(db, { iface: { id: iface.id, nodeId: iface.nodeId }, subnet: SUBNET, specs });
    }
    for (const table of ['clients', 'devices', 'accounts', 'client_interfaces'])
      await db.query(`vacuum (analyze) ${table}`);
    process.stderr.write(`bench: ${fixed(settings.clients)} clients inserted; opening the browser…\n`);

    const { context, page } = await launch(scope);
    // Cold: a fresh profile, nothing cached; the sign-in page is the first load.
    const initial = recordTransfers(page);
    await page.goto(`${panel.origin}/clients`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    initial.stop();
    const scripts = initial.transfers.filter((t) => t.type === 'script');
    const initialJs = scripts.reduce((sum, t) => sum + t.bytes, 0);
    const initialCss = initial.transfers.filter((t) => t.type === 'stylesheet').reduce((sum, t) => sum + t.bytes, 0);
    // The same files as a browser without brotli gets them: the build's precompressed .gz beside each.
    const gzipOf = (t) => statSync(join(ROOT_DIR, 'dist/web', `${new URL(t.url).pathname}.gz`)).size;
    const gzipJs = scripts.reduce((sum, t) => sum + gzipOf(t), 0);
    const gzipCss = initial.transfers.filter((t) => t.type === 'stylesheet').reduce((sum, t) => sum + gzipOf(t), 0);
    await page.getByLabel('Username').fill(BENCH_OWNER.username);
    await page.getByRole('textbox', { name: 'Password' }).fill(BENCH_OWNER.password);
    // From pressing "Sign in" to the first page of clients: the clients page's chunk is not loaded yet.
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForFunction(() => window.__rowAt !== undefined);
    const coldMs = await page.evaluate(() => window.__rowAt - window.__submitAt);

    const firstPage = [];
    const search = [];
    for (let round = 0; round < settings.rounds; round++) {
      await page.goto(`${panel.origin}/clients`);
      await page.waitForFunction(() => window.__rowAt !== undefined);
      firstPage.push(await page.evaluate(() => window.__rowAt));
      const wanted = `client-${String((round * 13_337 + 4_242) % settings.clients).padStart(6, '0')}`;
      await page.evaluate((name) => (window.__wanted = name), wanted);
      await page.getByTestId('client-search').fill(wanted);
      await page.waitForFunction(() => window.__resultAt !== undefined);
      search.push(await page.evaluate(() => window.__resultAt - window.__typedAt));
    }
    const browser = `Chromium ${(await page.evaluate(() => navigator.userAgent)).match(/Chrome\/([\d.]+)/)?.[1] ?? '?'} (headless)`;
    const rows = await page.locator('[data-testid="clients-table"] tbody tr').count();
    if (rows !== 1) throw new Error(`the search showed ${rows} rows`);
    await context.close();
    if (!panel.alive()) throw new Error(`the panel exited during the benchmark:\n${panel.tail()}`);

    const result = {
      coldMs,
      firstPage,
      search,
      initialJs,
      initialCss,
      gzipJs,
      gzipCss,
      scripts: scripts.length,
      browser,
    };
    const report = render({
      settings,
      machine,
      command,
      result,
      code: codeVersion(),
      postgres: await postgresVersion().catch(() => undefined),
    });
    publishReport(report, { writeDoc, docFile, id: ID, title: TITLE });
    return result;
  } catch (error) {
    if (panel) await reportPanelEnd(panel);
    throw error;
  } finally {
    await scope.run();
  }
}

function render({ settings, machine, command, result, code, postgres }) {
  const kb = (bytes) => `${fixed(bytes / 1024, 1)} KB`;
  const firstPage = median(result.firstPage);
  const search = median(result.search);
  const initialKb = (result.gzipJs + result.gzipCss) / 1024;
  const verdict = (value, target) => (value <= target ? 'met' : 'missed');
  const header = ['measure', 'median', 'rounds', 'target', ''];
  const rows = [
    [
      'navigation start → first page of clients on screen (warm: app files cached)',
      ms(firstPage),
      result.firstPage.map((v) => ms(v)).join(' / '),
      `< ${TARGETS.firstPageMs} ms`,
      verdict(firstPage, TARGETS.firstPageMs),
    ],
    [
      'sign-in submitted → first page of clients on screen (cold: fresh profile)',
      ms(result.coldMs),
      '1',
      `< ${TARGETS.firstPageMs} ms`,
      verdict(result.coldMs, TARGETS.firstPageMs),
    ],
    [
      'search typed → its one result alone on screen (150 ms debounce included)',
      ms(search),
      result.search.map((v) => ms(v)).join(' / '),
      `< ${TARGETS.searchMs} ms`,
      verdict(search, TARGETS.searchMs),
    ],
    [
      `first load: JavaScript (${result.scripts} files) + CSS, gzip`,
      `${kb(result.gzipJs)} + ${kb(result.gzipCss)}`,
      '1',
      `< ${TARGETS.initialKb} KB`,
      verdict(initialKb, TARGETS.initialKb),
    ],
    [
      `first load: the same on the wire (brotli, what Chromium was sent)`,
      `${kb(result.initialJs)} + ${kb(result.initialCss)}`,
      '1',
      '',
      '',
    ],
  ];
  const markdown = [
    `## ${TITLE}`,
    '',
    `The real panel (\`node dist/apps/controller/src/main.js\` with the flags \`npm start\` uses) serving the built web app, on a fresh database with ${fixed(settings.clients)} clients inserted with SQL exactly as \`POST /api/clients\` makes them; Debian's Chromium (headless, through playwright-core) with a fresh profile. The first page is 25 clients (newest first, a cursor page); a search is for one client's full name. Times are taken inside the page (\`performance.now()\` marks from a MutationObserver: when the table first holds a row, when the search's one result is alone in it), from the navigation's start, the form's submit or the search's input event. The app files are sent precompressed (brotli to browsers that take it, else gzip): the size target is checked on the gzip files of the same first load, and the brotli bytes are what Chromium transferred.`,
    '',
    `- Command: \`${command ?? 'npm run bench'}\` with \`BENCH_ONLY=web\` (BENCH_CLIENTS=${settings.clients} BENCH_ROUNDS=${settings.rounds})`,
    `- Date: ${new Date().toISOString()}; code: ${code}`,
    `- Machine: ${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB RAM, ${machine.platform}; shared with other engineers' test runs`,
    `- Software: Node ${machine.node}, ${result.browser}, PostgreSQL ${postgres ?? 'unknown'} on the same machine; plain HTTP`,
    '',
    'Anchors (the issue): panels of this kind take 6 to 40 s to show 900 to 1,250 users, and more than 10 minutes at 3,000; this page never loads more than one page of 25 (the cursor makes page n+1 cost the same at any depth).',
    '',
    markdownTable(header, rows),
    '',
  ].join('\n');
  return { markdown, text: textTable(header, rows) };
}
