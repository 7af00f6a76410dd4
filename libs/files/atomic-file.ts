import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Replaces a file so that a crash leaves either the old or the new content, never a mix: a
 * temporary file, flushed to disk, renamed over the old one. Mode 0600 (these files hold
 * credentials, private keys and counters), in a 0700 directory created when missing.
 */
export function writeFileAtomic(path: string, content: string, options: { durable?: boolean } = {}): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.tmp`;
  // A leftover from a crash would keep its old mode: the mode applies only on creation.
  rmSync(temporary, { force: true });
  const fd = openSync(temporary, 'w', 0o600);
  try {
    writeSync(fd, content);
    // Durable unless asked otherwise: a file rebuilt from other state on every use (a rendered
    // config) needs the atomic swap, not the wait for the disk.
    if (options.durable !== false) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, path);
}

export function writeJsonAtomic(path: string, value: unknown): void {
  writeFileAtomic(path, JSON.stringify(value));
}

/** The parsed file, or undefined when it does not exist. A corrupt file is an error, not "empty". */
export function readJsonFile<T>(path: string): T | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return JSON.parse(text) as T;
}
