import type { FieldError } from '#libs/contracts/api-error.js';
import { clientFields } from './panel-files.js';
import { rowError, UnreadableFile, type ImportDevice, type ImportFile, type ImportRow } from './import-rows.js';

/** The CSV's columns: one line per account (a client without devices: one line without them). */
export const CSV_COLUMNS = [
  'name',
  'note',
  'groups',
  'telegramId',
  'quotaBytes',
  'usedBytes',
  'expiresAt',
  'deviceLimit',
  'status',
  'device',
  'interface',
  'ip',
  'publicKey',
  'privateKey',
  'presharedKey',
] as const;

/** Cells a spreadsheet would compute (= + - @, tab, CR), and the guard quote itself. */
const GUARDED = /^[=+\-@\t\r']/;

/**
 * One CSV cell (RFC 4180): quoted when it holds a comma, quote or line break; a leading = + - @
 * gets a quote mark first, so a spreadsheet shows a name such as "=1+1" instead of computing it.
 * A leading quote mark gets one too, so reading drops exactly one and every cell reads back as it was.
 */
export function csvCell(value: string | number): string {
  let cell = String(value);
  if (GUARDED.test(cell)) cell = `'${cell}`;
  return /[",\r\n]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell;
}

/** A cell as the export wrote it: the guard quote dropped. */
const uncell = (cell: string): string => (cell.startsWith("'") ? cell.slice(1) : cell);

/** The file's records (RFC 4180: quoted cells may hold commas, quotes and line breaks), each with its first line's number. */
export function parseCsv(textIn: string): { line: number; cells: string[] }[] {
  const text = textIn.startsWith('\uFEFF') ? textIn.slice(1) : textIn;
  const records: { line: number; cells: string[] }[] = [];
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  let line = 1;
  let start = 1;
  let i = 0;
  const endRecord = () => {
    cells.push(cell);
    if (!(cells.length === 1 && cells[0] === '')) records.push({ line: start, cells });
    cells = [];
    cell = '';
  };
  while (i < text.length) {
    const char = text[i];
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        cell += '"';
        i += 2;
        continue;
      }
      if (char === '"') quoted = false;
      else {
        if (char === '\n') line += 1;
        cell += char;
      }
      i += 1;
      continue;
    }
    if (char === '"' && cell === '') quoted = true;
    else if (char === ',') {
      cells.push(cell);
      cell = '';
    } else if (char === '\r' || char === '\n') {
      if (char === '\r' && text[i + 1] === '\n') i += 1;
      endRecord();
      line += 1;
      start = line;
    } else cell += char;
    i += 1;
  }
  if (quoted) throw new UnreadableFile(`the CSV has a quoted cell that never closes (from line ${start})`);
  if (cell !== '' || cells.length > 0) endRecord();
  return records;
}

/** True when the text's first line is the export's header: a Warren CSV export. */
export function isWarrenCsv(bytes: Buffer): boolean {
  const head = bytes
    .subarray(0, 512)
    .toString('utf8')
    .replace(/^\uFEFF/, '');
  return head.startsWith(`${CSV_COLUMNS.join(',')}\r\n`) || head.startsWith(`${CSV_COLUMNS.join(',')}\n`);
}

/** A number cell as the JSON export would have it: empty is absent, digits a number, else the text (refused). */
function numberCell(cell: string): number | string | undefined {
  if (cell === '') return undefined;
  return /^\d{1,16}$/.test(cell) ? Number(cell) : cell;
}

/**
 * Warren's CSV export (GET /api/clients/export?format=csv): one line per account, a client's
 * lines sharing its name. A client's fields come from its first line; its lines' devices (by the
 * `device` column) bring their account on `sourceInterface` (by name), or their only one. A
 * device's fields are named by the line they are on: `rows[2].lines[5].ip`.
 */
export function readWarrenCsv(bytes: Buffer, sourceInterface?: string): ImportFile {
  const records = parseCsv(bytes.toString('utf8'));
  const header = records.shift();
  if (!header || !header.cells.includes('name'))
    throw new UnreadableFile(`a Warren CSV export starts with its header line (${CSV_COLUMNS.join(',')})`);
  const column = new Map(header.cells.map((name, index) => [name.trim(), index]));
  const byName = new Map<string, { line: number; cell: (name: string) => string }[]>();
  for (const record of records) {
    const cell = (name: string) => uncell(record.cells[column.get(name) ?? -1] ?? '');
    const lines = byName.get(cell('name').trim()) ?? [];
    lines.push({ line: record.line, cell });
    byName.set(cell('name').trim(), lines);
  }
  const rows = [...byName.values()].map((lines, index): ImportRow => {
    const row = index + 1;
    const at = `rows[${row}]`;
    const errors: FieldError[] = [];
    const first = lines[0].cell;
    const client = {
      name: first('name'),
      note: first('note'),
      groups: first('groups') === '' ? [] : first('groups').split(';'),
      telegramId: numberCell(first('telegramId')),
      quotaBytes: numberCell(first('quotaBytes')),
      usedBytes: numberCell(first('usedBytes')),
      expiresAt: first('expiresAt'),
      deviceLimit: numberCell(first('deviceLimit')),
      status: first('status'),
    };
    const devices = new Map<string, { line: number; cell: (name: string) => string }[]>();
    for (const entry of lines) {
      const name = entry.cell('device');
      if (name === '' || (sourceInterface !== undefined && entry.cell('interface') !== sourceInterface)) continue;
      devices.set(name, [...(devices.get(name) ?? []), entry]);
    }
    const imported: ImportDevice[] = [];
    for (const [name, accounts] of devices) {
      if (accounts.length > 1) {
        errors.push(
          rowError(
            `${at}.lines[${accounts[1].line}].interface`,
            `the device "${name}" has accounts on ${accounts.length} interfaces; name one with sourceInterface`,
          ),
        );
        continue;
      }
      const { line, cell } = accounts[0];
      imported.push({
        name,
        ip: cell('ip') || undefined,
        privateKey: cell('privateKey') || undefined,
        publicKey: cell('publicKey') || undefined,
        presharedKey: cell('presharedKey') || undefined,
        at: `${at}.lines[${line}]`,
      });
    }
    if (imported.length === 0 && errors.length === 0)
      errors.push(rowError(`${at}.device`, 'the client has no device to import'));
    return { row, ...clientFields(client, at, errors), devices: imported, errors };
  });
  return { format: 'warren-csv', rows };
}
