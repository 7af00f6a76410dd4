import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { MAX_HOST_STATE_FILE_BYTES, MAX_HOST_STATE_FILES, type HostState } from '#libs/contracts/host-state.js';
import type { CommandRunner } from './command-runner.js';

/**
 * What the agent manages on its host, for a backup (libs/contracts/host-state.ts): every regular
 * file under its host state directory (WireGuard and hop configs, rulesets, the apply record) and
 * the nftables tables it owns (named with its table prefix), as `nft list table` prints them.
 * Nothing outside the state directory is read, symbolic links are not followed, and the agent's
 * own credential (kept beside the state directory, not in it) is never part of it.
 */
export async function collectHostState(
  runner: CommandRunner,
  stateDir: string,
  tablePrefix: string,
): Promise<HostState> {
  const files: HostState['files'] = [];
  const entries = (await readdir(stateDir, { recursive: true }).catch(() => [] as string[])).sort();
  for (const entry of entries) {
    if (files.length >= MAX_HOST_STATE_FILES) break;
    const path = join(stateDir, entry);
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile()) continue;
    const truncated = info.size > MAX_HOST_STATE_FILE_BYTES;
    const content = truncated ? Buffer.alloc(0) : await readFile(path).catch(() => Buffer.alloc(0));
    files.push({
      path: relative(stateDir, path),
      mode: info.mode & 0o7777,
      contentBase64: content.toString('base64'),
      truncated,
    });
  }
  return { collectedAt: Date.now(), files, nftables: await ownTables(runner, tablePrefix) };
}

async function ownTables(runner: CommandRunner, prefix: string): Promise<string | null> {
  try {
    const { stdout } = await runner.run('nft', ['list', 'tables']);
    const tables = stdout
      .split('\n')
      .map((line) => /^table (\S+) (\S+)$/.exec(line.trim()))
      .filter((m): m is RegExpExecArray => m !== null && m[2].startsWith(prefix));
    const listed: string[] = [];
    for (const [, family, name] of tables)
      listed.push((await runner.run('nft', ['list', 'table', family, name])).stdout);
    return listed.join('\n').slice(0, MAX_HOST_STATE_FILE_BYTES);
  } catch {
    return null; // nft missing or not permitted: reported as a gap already
  }
}
