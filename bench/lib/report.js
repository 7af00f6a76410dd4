import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

const HEADER = `# Benchmarks

Written by \`npm run bench\` (see \`bench/\`). Each section below is replaced by its own benchmark on
every run; sections are delimited by \`<!-- bench:<id> -->\` markers, and text outside them is kept.
`;

/** Replaces (or appends) the section `id` of the markdown file, leaving every other section alone. */
export function writeSection(file, id, body) {
  const start = `<!-- bench:${id} -->`;
  const end = `<!-- /bench:${id} -->`;
  const section = `${start}\n${body.trim()}\n${end}`;
  const current = existsSync(file) ? readFileSync(file, 'utf8') : HEADER;
  const from = current.indexOf(start);
  const to = current.indexOf(end, from);
  let next;
  if (from !== -1 && to !== -1) next = current.slice(0, from) + section + current.slice(to + end.length);
  else next = `${current.replace(/\s*$/, '')}\n\n${section}\n`;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, next);
}

/** A markdown table from a header row and data rows. */
export function markdownTable(header, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** The same table, aligned for a terminal. */
export function textTable(header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) =>
    cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

// Number formatting every report uses: '–' where there is no value, thousands separators, and
// decimals only where the magnitude needs them.

const missing = (n) => n === undefined || n === null || Number.isNaN(n);

/** `n` with `digits` decimals and thousands separators (none with `grouping: false`); '–' when missing. */
export function fixed(n, digits = 0, { grouping = true } = {}) {
  if (missing(n)) return '–';
  return n.toLocaleString('en-US', {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
    useGrouping: grouping,
  });
}

/** Milliseconds: `small` decimals below `threshold` (absolute), `large` from there. */
export function ms(n, { small = 1, large = 0, threshold = 10, grouping = true } = {}) {
  return missing(n) ? '–' : `${fixed(n, Math.abs(n) < threshold ? small : large, { grouping })} ms`;
}

/** A percentage: whole numbers, or `small` decimals below 10. */
export function percent(n, { small = 0 } = {}) {
  return missing(n) ? '–' : `${fixed(n, n < 10 ? small : 0)}%`;
}

/** Mebibytes (the value already in MiB). */
export function mib(n, digits = 0) {
  return `${fixed(n, digits)} MiB`;
}

/** Milliseconds for request latencies: two decimals below 10 ms, one from there. */
export const latencyMs = (n) => ms(n, { small: 2, large: 1 });

/** A percentage with one decimal below 10%. */
export const percentFine = (n) => percent(n, { small: 1 });
