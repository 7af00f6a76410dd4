import { api, must, type Schemas } from '../api.js';

type Template = Schemas['TemplateDto'];
type Import = Schemas['TemplateImportDto'];
type Row = Record<string, unknown>;
/** The rows of the import's answer (TemplateSectionCountsDto): `routing` counts nodes whose basic settings were written. */
export const PREVIEW_SECTIONS = ['nodes', 'interfaces', 'hosts', 'outbounds', 'routing', 'rules', 'settings'] as const;
export type PreviewSection = (typeof PREVIEW_SECTIONS)[number];

export interface Preview {
  section: PreviewSection;
  create: number;
  update: number;
}

export interface ImportPreview {
  rows: Preview[];
  /** Rules the import leaves out: they name a client this panel lacks, or one many clients share. */
  skippedRules: number;
}

const json = (...parts: unknown[]) => JSON.stringify(parts);
const text = (value: unknown) => (typeof value === 'string' ? value : '');

/**
 * How PUT /api/template matches an imported row to an existing one, as its plan does
 * (apps/controller/src/template/template-plan.service.ts): names exactly, except a host's name
 * (regardless of case) and a rule's (trimmed).
 */
const KEYS = {
  nodes: (row: Row) => json(row.name),
  interfaces: (row: Row) => json(row.node, row.name),
  hosts: (row: Row) => json(row.node, row.interface, text(row.name).toLowerCase()),
  outbounds: (row: Row) => json(row.node, row.tag),
} as const;

/**
 * What an import will do, worked out against the configuration as GET /api/template answers it:
 * the same counts PUT answers with. The API has no dry run; a row it refuses still fails the
 * whole import (nothing written), and its message shows then.
 */
export async function previewOf(file: Import, current: Template): Promise<ImportPreview> {
  const rows: Preview[] = [];
  for (const section of ['nodes', 'interfaces', 'hosts', 'outbounds'] as const) {
    const list = file[section] as Row[] | undefined;
    if (!Array.isArray(list)) continue;
    const existing = new Set(((current[section] ?? []) as Row[]).map(KEYS[section]));
    const update = list.filter((row) => existing.has(KEYS[section](row))).length;
    rows.push({ section, create: list.length - update, update });
  }

  let skippedRules = 0;
  const routing = file.routing as Row[] | undefined;
  if (Array.isArray(routing)) {
    // Basic settings are written whenever given (counted as updated, one per node).
    rows.push({ section: 'routing', create: 0, update: routing.filter((row) => row.basic !== undefined).length });
    const existing = new Set(
      (current.routing ?? []).flatMap((node) => node.rules.map((rule) => json(node.node, rule.name.trim()))),
    );
    const rules = routing.flatMap((row) =>
      Array.isArray(row.rules) ? (row.rules as Row[]).map((rule) => ({ node: row.node, rule })) : [],
    );
    const clients = await clientCounts([
      ...new Set(rules.flatMap(({ rule }) => (Array.isArray(rule.clients) ? (rule.clients as string[]) : []))),
    ]);
    let create = 0;
    let update = 0;
    for (const { node, rule } of rules) {
      if (Array.isArray(rule.clients) && (rule.clients as string[]).some((name) => clients.get(name) !== 1))
        skippedRules++;
      else if (existing.has(json(node, text(rule.name).trim()))) update++;
      else create++;
    }
    rows.push({ section: 'rules', create, update });
  }

  if (file.settings !== undefined && file.settings !== null) {
    // Only the keys whose value differs are written (and counted).
    const now = (current.settings ?? {}) as Row;
    const changed = Object.entries(file.settings as Row).filter(
      ([name, value]) => value !== undefined && now[name] !== value,
    ).length;
    rows.push({ section: 'settings', create: 0, update: changed });
  }
  return { rows, skippedRules };
}

/** How many clients bear each name (exactly), by searching for each: never the whole list of clients. */
async function clientCounts(names: string[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  await Promise.all(
    names.map(async (name) => {
      if (typeof name !== 'string' || name === '') return;
      const page = await must(
        api.GET('/api/clients', { params: { query: { search: name.slice(0, 128), perPage: 200 } } }),
      );
      counts.set(name, page.items.filter((client) => client.name === name).length);
    }),
  );
  return counts;
}
