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
  const line = (cells) => cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
