import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import type { Readable } from 'node:stream';
import { link, lstat, mkdir, open, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';

/** `backup-YYYYMMDD-HHMMSS.tar.gz`: the only names the store reads, writes or deletes. */
export const BACKUP_NAME = /^backup-(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})\.tar\.gz$/;
export const BACKUP_NAME_RULE = 'backup-YYYYMMDD-HHMMSS.tar.gz';

/** Beside an archive the schedule made (`<name>.scheduled`): the archives retention may prune. */
export const SCHEDULED_MARK = '.scheduled';

/** The scratch entries the store makes (`.<kind>-…`), and those made by backup and restore runs alone. */
const SCRATCH_KINDS = ['staging', 'archive', 'upload', 'check', 'restore'] as const;
type ScratchKind = (typeof SCRATCH_KINDS)[number];
const RUN_SCRATCH_KINDS: readonly ScratchKind[] = ['staging', 'archive', 'restore'];

export interface BackupFile {
  name: string;
  size: number;
  createdAt: Date;
  sha256: string;
}

/** The name a backup made at `at` gets (UTC). */
export function backupNameAt(at: Date): string {
  const iso = at.toISOString(); // 2026-11-25T10:00:37.123Z
  return `backup-${iso.slice(0, 10).replaceAll('-', '')}-${iso.slice(11, 19).replaceAll(':', '')}.tar.gz`;
}

/** When a backup was made, from its name; null for any other name. */
export function createdAtOf(name: string): Date | null {
  const m = BACKUP_NAME.exec(name);
  if (!m) return null;
  const at = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]));
  return backupNameAt(at) === name ? at : null; // 20261331 does not roll over into another date
}

/** A read stream of a regular file that is not a symbolic link (O_NOFOLLOW). */
export async function openNoFollow(path: string): Promise<Readable> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  return handle.createReadStream();
}

export async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(await openNoFollow(path), hash);
  return hash.digest('hex');
}

/**
 * The backup directory. Archives are written under a temporary name and renamed into place, so
 * a crash mid-write never leaves a half archive under a backup name; each archive's SHA-256 sits
 * beside it (`<name>.sha256`) so listing never reads archives. A name is checked against
 * BACKUP_NAME before it is joined to the directory: nothing outside it can be named.
 */
export class BackupStore {
  constructor(readonly dir: string) {}

  /** The archive's path, or null when `name` is not a backup name. */
  pathOf(name: string): string | null {
    return createdAtOf(name) ? join(this.dir, name) : null;
  }

  /** A fresh path inside the store for an archive being written (renamed by `commit`). */
  async scratch(purpose: string): Promise<string> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    return join(this.dir, `.${purpose}-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}.part`);
  }

  /**
   * Puts a finished archive in place under `name` with its checksum; false when the name is taken
   * (two uploads or backups racing for one name: the second never overwrites the first). A hard
   * link is exclusive where a rename would replace.
   */
  async commit(scratch: string, name: string, sha256: string): Promise<BackupFile | null> {
    const path = this.pathOf(name);
    if (!path) throw new Error(`not a backup name: ${name}`);
    try {
      await link(scratch, path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return null;
      throw error;
    }
    await rm(scratch, { force: true });
    await rm(`${path}.sha256`, { force: true }); // never written through a link someone left there
    await writeFile(`${path}.sha256`, `${sha256}\n`, { mode: 0o600, flag: 'wx' });
    const info = await lstat(path);
    return { name, size: info.size, createdAt: createdAtOf(name)!, sha256 };
  }

  /**
   * What a backup or restore run leaves behind if its controller dies (kill -9, power loss): only
   * runs make these, one at a time under the run lock, so whoever holds the lock may sweep them
   * whatever their age.
   */
  async sweepDeadRuns(): Promise<number> {
    return this.sweepScratch(0, RUN_SCRATCH_KINDS);
  }

  /**
   * Removes what runs that died left behind (staging and check directories, partial uploads):
   * entries of the scratch kinds older than an hour, so a run in progress on another controller
   * sharing the directory is left alone.
   */
  async sweepScratch(olderThanMs = 3_600_000, kinds: readonly ScratchKind[] = SCRATCH_KINDS): Promise<number> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    const pattern = new RegExp(`^\\.(${kinds.join('|')})-`);
    let removed = 0;
    for (const name of names.filter((entry) => pattern.test(entry))) {
      const info = await lstat(join(this.dir, name)).catch(() => null);
      if (!info || Date.now() - info.mtimeMs < olderThanMs) continue;
      await this.discardDir(join(this.dir, name));
      removed += 1;
    }
    return removed;
  }

  async discard(scratch: string): Promise<void> {
    await rm(scratch, { force: true });
  }

  /**
   * Removes a working directory (staging, checking). Never throws: it runs in `finally`, where an
   * error would hide the one that matters; retried, because an extraction that failed half-way
   * may still be closing files in it.
   */
  async discardDir(dir: string): Promise<void> {
    await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }).catch(() => undefined);
  }

  /** Newest first. */
  async list(): Promise<BackupFile[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const files = await Promise.all(names.filter((name) => createdAtOf(name)).map((name) => this.get(name)));
    return files.filter((file): file is BackupFile => file !== null).sort((a, b) => b.name.localeCompare(a.name));
  }

  async get(name: string): Promise<BackupFile | null> {
    const path = this.pathOf(name);
    if (!path) return null;
    try {
      // lstat: a symbolic link under a backup name (put there by whoever else can write the
      // directory) is not a backup, and is never followed.
      const info = await lstat(path);
      if (!info.isFile()) return null;
      return { name, size: info.size, createdAt: createdAtOf(name)!, sha256: await this.checksumOf(path) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async latest(): Promise<BackupFile | null> {
    return (await this.list())[0] ?? null;
  }

  /** False when there was no such backup. */
  async remove(name: string): Promise<boolean> {
    const path = this.pathOf(name);
    if (!path) return false;
    try {
      await rm(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
    await rm(`${path}.sha256`, { force: true });
    await rm(`${path}${SCHEDULED_MARK}`, { force: true });
    return true;
  }

  /**
   * Marks an archive as the schedule's: retention prunes those alone (docs/backups.md). The mark
   * is a file of its own beside the archive, so listing never reads archives; written after the
   * archive is in place, so a crash between the two leaves an archive that is kept, never one
   * pruned that should not be.
   */
  async markScheduled(name: string): Promise<void> {
    const path = this.pathOf(name);
    if (!path) throw new Error(`not a backup name: ${name}`);
    await rm(`${path}${SCHEDULED_MARK}`, { force: true }); // never written through a link left there
    await writeFile(`${path}${SCHEDULED_MARK}`, '', { mode: 0o600, flag: 'wx' });
  }

  /** Whether the schedule made the archive (a regular file marks it; a link is no mark). */
  async isScheduled(name: string): Promise<boolean> {
    const path = this.pathOf(name);
    if (!path) return false;
    const info = await lstat(`${path}${SCHEDULED_MARK}`).catch(() => null);
    return info?.isFile() ?? false;
  }

  /**
   * The recorded checksum, or (an archive copied in by hand) one computed now. Reading never
   * writes: a list or an overview request must not create files.
   */
  private async checksumOf(path: string): Promise<string> {
    try {
      if ((await lstat(`${path}.sha256`)).isFile()) {
        const recorded = (await readFile(`${path}.sha256`, 'utf8')).trim();
        if (/^[0-9a-f]{64}$/.test(recorded)) return recorded;
      }
    } catch {
      // none recorded
    }
    return sha256OfFile(path);
  }
}
