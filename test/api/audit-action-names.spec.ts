import { readFileSync } from 'node:fs';
import { auditedRoute } from '../../apps/controller/src/audit/audited-route.js';
import { RouteTableService } from '../../apps/controller/src/docs/route-table.service.js';
import { AUDIT_ACTIONS } from '../../apps/web/src/pages/audit-names.js';
import { en } from '../../apps/web/src/locales/en.js';
import { fa } from '../../apps/web/src/locales/fa.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';

/**
 * Every action the panel records (docs/audit.md) is on the Audit page's list and has its words in
 * English and Persian, so the page never shows `clients.batch` where it means "Clients created in
 * a batch". The actions are read from where they are made: the route table (each audited route's
 * derived or declared action), the command line's table, and the recorder's own `audit.off`.
 */
let t: TestPanel;

beforeAll(async () => {
  t = await startTestPanel();
});
afterAll(async () => {
  await t?.stop();
});

/**
 * The command line's audited commands: read from its table's source, since apps/controller/src/cli/main.ts
 * runs the command line when imported. Each `'name': {` entry whose body declares `audit:` is
 * recorded as `cli.<name with dots>` (cli-audit.ts).
 */
function cliActions(): string[] {
  const source = readFileSync(new URL('../../apps/controller/src/cli/main.ts', import.meta.url), 'utf8');
  const table = source.slice(source.indexOf('const COMMANDS'));
  const entries = [...table.matchAll(/^ {2}'?([a-z][a-z -]*)'?: \{$/gm)];
  return entries
    .filter((entry, i) => table.slice(entry.index, entries[i + 1]?.index ?? table.length).includes('audit:'))
    .map((entry) => `cli.${entry[1].replaceAll(' ', '.')}`);
}

function recordedActions(): string[] {
  const routes = t.panel.app
    .get(RouteTableService)
    .all()
    .map((spec) => auditedRoute(spec)?.action)
    .filter((action): action is string => Boolean(action));
  return [...new Set([...routes, ...cliActions(), 'audit.off'])].sort();
}

test('the Audit page lists exactly the actions the panel records', () => {
  expect(cliActions()).toContain('cli.token.issue');
  expect([...AUDIT_ACTIONS].sort()).toEqual(recordedActions());
});

test('every recorded action has its words in English and Persian', () => {
  const missing = (words: Record<string, string>) =>
    recordedActions().filter((action) => !words[action.replaceAll('.', '_')]?.trim());
  expect(missing(en.audit.actions)).toEqual([]);
  expect(missing(fa.audit.actions)).toEqual([]);
});
