import { readWarrenExport, readWuiExport } from './panel-files.js';
import { isWarrenCsv, readWarrenCsv } from './warren-csv.js';
import { isRecord, UnreadableFile, type ImportFile, type ImportFormat } from './import-rows.js';
import { readWgEasyJson, readWgEasySqlite } from './wg-easy-file.js';

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

/** Which format a file is in, from its content: SQLite's header, else the JSON's shape (Warren's CSV header is recognised first). */
function detect(bytes: Buffer, json: unknown): ImportFormat {
  if (bytes.subarray(0, SQLITE_MAGIC.length).equals(SQLITE_MAGIC)) return 'wg-easy-sqlite';
  if (!isRecord(json)) throw new UnreadableFile('the file is neither JSON of a known panel nor a wg-easy database');
  if (json.format === 'warren-clients') return 'warren';
  if (isRecord(json.clients) && isRecord(json.server)) return 'wg-easy-json';
  if (Array.isArray(json.clients) && json.clients.some((client) => isRecord(client) && Array.isArray(client.accounts)))
    return 'w-ui';
  throw new UnreadableFile('the file is JSON, but not a Warren export, a wg-easy wg0.json nor a W-UI export');
}

/** Reads an uploaded file into rows; `format` overrides the detection. */
export function readImportFile(bytes: Buffer, format?: ImportFormat, sourceInterface?: string): ImportFile {
  if (bytes.length === 0) throw new UnreadableFile('the file is empty');
  if (format === 'warren-csv' || (format === undefined && isWarrenCsv(bytes)))
    return readWarrenCsv(bytes, sourceInterface);
  const isSqlite = bytes.subarray(0, SQLITE_MAGIC.length).equals(SQLITE_MAGIC);
  let json: unknown;
  if (!isSqlite) {
    try {
      json = JSON.parse(bytes.toString('utf8'));
    } catch {
      throw new UnreadableFile('the file is neither JSON, a SQLite database nor a Warren CSV export');
    }
  }
  const kind = format ?? detect(bytes, json);
  if (kind === 'wg-easy-sqlite') {
    if (!isSqlite) throw new UnreadableFile('the file is not a SQLite database');
    return readWgEasySqlite(bytes);
  }
  if (!isRecord(json)) throw new UnreadableFile(`the file is not a ${kind} JSON file`);
  if (kind === 'wg-easy-json') return readWgEasyJson(json);
  if (kind === 'w-ui') return readWuiExport(json, sourceInterface);
  return readWarrenExport(json, sourceInterface);
}
