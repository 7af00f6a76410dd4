import { createReadStream } from 'node:fs';
import { open, readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import * as tar from 'tar';
import { sha256OfFile } from './backup-store.js';
import {
  MANIFEST_FILE,
  manifestSchema,
  NODE_PART,
  TABLE_PART,
  BACKUP_FORMAT,
  BACKUP_FORMAT_VERSION,
  type Manifest,
} from './manifest.js';

/**
 * Why an archive cannot be restored: said to the caller as a 400 (or 409 for a newer panel's, or
 * 503 when the panel's writers left the restore no moment to take its locks: try again).
 */
export class ArchiveRefused extends Error {
  constructor(
    message: string,
    readonly status: 400 | 409 | 503 = 400,
  ) {
    super(message);
  }
}

/** Packs a staging directory (manifest.json plus its parts) into one gzip-compressed tar. */
export async function packArchive(stagingDir: string, file: string, manifest: Manifest): Promise<void> {
  const parts = [MANIFEST_FILE, ...Object.keys(manifest.files).sort()];
  await tar.create(
    { gzip: { level: 6 }, file, cwd: stagingDir, portable: true, noDirRecurse: true, mode: 0o600 },
    parts,
  );
}

const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;
const GZIP_MAGIC = Buffer.from([0x1f, 0x8b]);

/**
 * Unpacks an archive into `targetDir` and checks it before anything reads it: a gzip tar with
 * only plain files at the paths a backup has (no links, no devices, nothing outside the
 * directory), at most `maxBytes` unpacked (a small archive cannot expand to fill the disk), a
 * manifest of a known format and version at a migration level this panel knows, and every part
 * present with the SHA-256 the manifest gives, and no part the manifest does not list.
 */
export async function unpackArchive(
  file: string,
  targetDir: string,
  maxBytes: number,
  knownMigrations: string[],
): Promise<Manifest> {
  const head = Buffer.alloc(2);
  const handle = await open(file, 'r');
  try {
    await handle.read(head, 0, 2, 0);
  } finally {
    await handle.close();
  }
  if (!head.equals(GZIP_MAGIC)) throw new ArchiveRefused('not a backup archive (not gzip-compressed)');

  let unpacked = 0;
  let refusal: string | undefined;
  const source = createReadStream(file);
  const unpack = new tar.Unpack({
    cwd: targetDir,
    strict: true,
    preservePaths: false,
    preserveOwner: false,
    filter: (path, entry) => {
      const type = 'type' in entry ? entry.type : 'File';
      const size = 'size' in entry ? Number(entry.size) : 0;
      const clean = path.replace(/^\.\//, '');
      // `tar czf x.tar.gz -C dir .` writes the directories too, `./` first.
      if (type === 'Directory' && /^(\.?\/?|database\/?|nodes\/?|nodes\/[0-9a-f-]{36}\/?)$/.test(clean)) return true;
      if (type !== 'File' || !(clean === MANIFEST_FILE || TABLE_PART.test(clean) || NODE_PART.test(clean))) {
        refusal ??= `the archive holds an entry a backup does not have: ${clean.slice(0, 100)}`;
        return false;
      }
      unpacked += size;
      if (unpacked > maxBytes) {
        refusal ??= `the archive unpacks to more than ${maxBytes} bytes`;
        // Skipping the entry would still inflate it to its end (a 4 GiB entry took 36 s): stop
        // reading and inflating now, the archive is refused whatever follows.
        source.destroy();
        unpack.abort(new Error(refusal));
        return false;
      }
      return true;
    },
  });
  try {
    await new Promise<void>((resolve, reject) => {
      unpack.on('error', reject);
      unpack.on('abort', reject);
      unpack.on('close', () => resolve());
      source.on('error', reject);
      source.pipe(unpack);
    });
  } catch {
    source.destroy();
    // The tar library's own words (base256, TAR_BAD_ARCHIVE) tell an operator nothing.
    throw new ArchiveRefused(refusal ?? 'the archive is damaged or truncated (not a readable .tar.gz)');
  }
  if (refusal) throw new ArchiveRefused(refusal);
  const manifestPath = join(targetDir, MANIFEST_FILE);
  const manifestSize = (await stat(manifestPath).catch(() => null))?.size;
  if (manifestSize === undefined) throw new ArchiveRefused('the archive has no manifest.json');
  // A manifest is a few kilobytes per table and node: a huge one is an attack on the parser.
  if (manifestSize > MAX_MANIFEST_BYTES)
    throw new ArchiveRefused(`the archive's manifest is larger than ${MAX_MANIFEST_BYTES} bytes`);

  let manifest: Manifest;
  try {
    const raw = JSON.parse(await readFile(manifestPath, 'utf8')) as { format?: unknown; formatVersion?: unknown };
    if (raw.format !== BACKUP_FORMAT)
      throw new ArchiveRefused('not a Warren backup (its manifest names another format)');
    if (raw.formatVersion !== BACKUP_FORMAT_VERSION) {
      throw new ArchiveRefused(
        `unknown backup format version ${JSON.stringify(raw.formatVersion)} (this panel reads version ${BACKUP_FORMAT_VERSION})`,
      );
    }
    const parsed = manifestSchema.safeParse(raw);
    if (!parsed.success) throw new ArchiveRefused(manifestFault(parsed.error.issues[0]));
    manifest = parsed.data;
  } catch (error) {
    if (error instanceof ArchiveRefused) throw error;
    // JSON.parse's own words, which name a position in the file and nothing of the panel's.
    throw new ArchiveRefused(
      `the archive's manifest.json is not readable JSON (${(error as Error).message.slice(0, 120)})`,
    );
  }
  if (!knownMigrations.includes(manifest.migration)) {
    throw new ArchiveRefused(
      `the backup was made by a newer panel (migration ${manifest.migration} is unknown here): upgrade this panel first`,
      409,
    );
  }

  const present = await listParts(targetDir);
  for (const path of present)
    if (!(path in manifest.files))
      throw new ArchiveRefused(`the archive holds a part its manifest does not list: ${path}`);
  for (const [path, sha256] of Object.entries(manifest.files)) {
    if (!present.includes(path)) throw new ArchiveRefused(`the archive lacks a part its manifest lists: ${path}`);
    if ((await sha256OfFile(join(targetDir, path))) !== sha256)
      throw new ArchiveRefused(`checksum mismatch: ${path} is not what the backup wrote`);
  }
  for (const table of manifest.tables)
    if (!(table.file in manifest.files)) throw new ArchiveRefused(`table ${table.name} has no part`);
  return manifest;
}

/** What each manifest field must be, in words (zod's own text quotes its regular expressions). */
const MANIFEST_FIELDS: Record<string, string> = {
  panelVersion: 'a version of at most 64 characters',
  createdAt: 'a UTC date and time such as 2026-11-25T10:00:37.000Z, within the years 2000..9998',
  migration: 'a migration name such as Migration20261122060245_initial',
  tables: 'a list of tables, each with its name, columns, row count and part file',
  nodes: 'a list of nodes, each with its id, name, state, error and part file',
  files: 'the SHA-256 (64 hexadecimal digits) of every part, by path',
};

/** One sentence for a manifest that does not have the shape a backup writes, naming the field. */
function manifestFault(issue: { path: PropertyKey[] } | undefined): string {
  const path = (issue?.path ?? []).map(String);
  const field = path.join('.');
  if (!field) return "the archive's manifest is not a backup manifest (not a JSON object)";
  const rule = MANIFEST_FIELDS[path[0]];
  return `the archive's manifest has an invalid ${field}${rule ? `: it must be ${rule}` : ''}`;
}

async function listParts(dir: string): Promise<string[]> {
  const parts: string[] = [];
  for (const top of ['database', 'nodes']) {
    const base = join(dir, top);
    const entries = await readdir(base, { recursive: true }).catch(() => [] as string[]);
    for (const entry of entries) {
      if ((await stat(join(base, entry))).isFile()) parts.push(`${top}/${entry}`);
    }
  }
  return parts;
}
