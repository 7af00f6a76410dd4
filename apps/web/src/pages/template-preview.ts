import { BUILTIN_OUTBOUNDS } from '../../../../libs/contracts/builtin-outbounds.js';
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

/**
 * A row the API would refuse, failing the whole import: it names a node, an interface or an
 * outbound that neither this panel nor the file has. `path` is the field the API would name.
 */
export type PreviewProblem =
  | { kind: 'unknownNode'; path: string; node: string }
  | { kind: 'unknownInterface'; path: string; node: string; name: string }
  | { kind: 'unknownOutbound'; path: string; node: string; name: string };

export interface ImportPreview {
  rows: Preview[];
  /** Rules the import leaves out: they name a client this panel lacks, or one many clients share. */
  skippedRules: number;
  /** What would make the import fail, in file order; empty when the names all resolve. */
  problems: PreviewProblem[];
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
  return { rows, skippedRules, problems: problemsOf(file, current) };
}

const listOf = (value: unknown): Row[] =>
  Array.isArray(value) ? value.filter((row): row is Row => typeof row === 'object' && row !== null) : [];

/**
 * The names the API's plan resolves (template-plan.service.ts), checked the same way: a node must
 * be in this panel or the file's nodes; a host's and a rule's interfaces, and a rule's or the
 * default outbound, must be on that node here or in the file (or be a built-in outbound). A row
 * whose own fields are malformed is left to the API, whose message then shows.
 */
export function problemsOf(file: Import, current: Template): PreviewProblem[] {
  const problems: PreviewProblem[] = [];
  const nodes = new Set([...listOf(current.nodes), ...listOf(file.nodes)].map((row) => text(row.name)));
  const interfaces = new Set(
    [...listOf(current.interfaces), ...listOf(file.interfaces)].map((row) => json(row.node, row.name)),
  );
  const tags = new Set([...listOf(current.outbounds), ...listOf(file.outbounds)].map((row) => json(row.node, row.tag)));
  const knownNode = (row: Row, path: string): string | undefined => {
    if (typeof row.node !== 'string') return undefined;
    if (nodes.has(row.node)) return row.node;
    problems.push({ kind: 'unknownNode', path: `${path}.node`, node: row.node });
    return undefined;
  };
  const outbound = (node: string, tag: unknown, path: string) => {
    if (typeof tag !== 'string' || (BUILTIN_OUTBOUNDS as readonly string[]).includes(tag)) return;
    if (!tags.has(json(node, tag))) problems.push({ kind: 'unknownOutbound', path, node, name: tag });
  };
  const iface = (node: string, name: unknown, path: string) => {
    if (typeof name === 'string' && !interfaces.has(json(node, name)))
      problems.push({ kind: 'unknownInterface', path, node, name });
  };
  for (const section of ['interfaces', 'hosts', 'outbounds'] as const) {
    listOf(file[section]).forEach((row, i) => {
      const node = knownNode(row, `${section}.${i}`);
      if (node !== undefined && section === 'hosts') iface(node, row.interface, `hosts.${i}.interface`);
    });
  }
  listOf(file.routing).forEach((row, i) => {
    const node = knownNode(row, `routing.${i}`);
    if (node === undefined) return;
    const basic = row.basic as Row | null | undefined;
    if (basic && typeof basic === 'object') outbound(node, basic.defaultOutbound, `routing.${i}.basic.defaultOutbound`);
    listOf(row.rules).forEach((rule, j) => {
      const path = `routing.${i}.rules.${j}`;
      outbound(node, rule.outboundTag, `${path}.outboundTag`);
      if (Array.isArray(rule.interfaces))
        (rule.interfaces as unknown[]).forEach((name, k) => iface(node, name, `${path}.interfaces.${k}`));
    });
  });
  return problems;
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
