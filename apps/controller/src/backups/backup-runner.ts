import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { WARREN_VERSION as PANEL_VERSION } from '#libs/version/warren-version.js';
import { agentState, isUnmanaged, type AgentState } from '../system/agent-state.js';
import { PANEL_RUNTIME, type PanelRuntime } from '../runtime.js';
import { SettingsService } from '../settings/settings.service.js';
import { packArchive, unpackArchive } from './backup-archive.js';
import { BackupStore, backupNameAt, sha256OfFile, type BackupFile } from './backup-store.js';
import { BackupsRepository } from './backups.repository.js';
import { HostStateCollector } from './host-state-collector.js';
import { BACKUP_FORMAT, BACKUP_FORMAT_VERSION, MANIFEST_FILE, type Manifest } from './manifest.js';

/** Where a run is, for GET /api/backups while it runs. */
export interface RunProgress {
  stage: 'database' | 'nodes' | 'packing' | 'checking' | 'restoring' | 'retention' | 'done';
  percent: number;
}
export type ReportProgress = (progress: RunProgress) => Promise<void>;

/** Why a node's host state is not in a backup, by its agent's state. */
const AGENT_NOT_LINKED: Record<AgentState, string> = {
  'never-enrolled': 'the node has no enrolled agent',
  enrolled: "the node's agent has never connected",
  disconnected: "the node's agent is not connected",
  connected: "the node's agent did not answer",
  unmanaged: 'the node is not managed by an agent (WARREN_LOCAL_AGENT=off)',
};

/** A backup that found its directory's disk full: refused as 507 with this sentence (backup-jobs.ts). */
export class BackupDiskFull extends Error {}

/**
 * A full backup directory, said so: Node's own text (`ENOSPC: no space left on device, write`)
 * names neither the directory nor what became of the backup. Other errors pass unchanged.
 */
function noSpaceInWords(error: unknown, dir: string): unknown {
  const failure = error as NodeJS.ErrnoException;
  if (failure?.code !== 'ENOSPC' && !/\bENOSPC\b/.test(String(failure?.message))) return error;
  return new BackupDiskFull(
    `no space left on the disk of the backup directory ${dir} (ENOSPC): the backup was not made and nothing of it was kept; free space there or set WARREN_BACKUP_DIR to a larger disk`,
  );
}

/** An archive unpacks to at most this many times its own size (COPY text compresses about 5-10x). */
const MAX_EXPANSION = 64;

/**
 * The work of a backup and of a restore, run inside their jobs (backup-jobs.ts). A backup
 * stages its parts in a directory of its own inside the store, packs them into a scratch file
 * and renames it into place: a crash at any step leaves no archive under a backup name.
 */
@Injectable()
export class BackupRunner {
  private readonly logger = new Logger('backups');

  constructor(
    readonly store: BackupStore,
    private readonly repository: BackupsRepository,
    private readonly hostStates: HostStateCollector,
    private readonly settings: SettingsService,
    @Inject(PANEL_RUNTIME) private readonly runtime: Pick<PanelRuntime, 'config'>,
  ) {}

  /**
   * Makes a backup. Only a scheduled one is marked as the schedule's and followed by retention:
   * retention deletes archives, which only the owner may delete, so no backup made by hand (an
   * admin may make them) ever removes one (docs/backups.md, "Schedule and retention").
   */
  async backup(report: ReportProgress, trigger: 'api' | 'schedule' = 'api'): Promise<BackupFile> {
    const createdAt = await this.freeSecond();
    const name = backupNameAt(createdAt);
    const staging = await this.store.scratch('staging');
    const scratch = await this.store.scratch('archive');
    try {
      await mkdir(join(staging, 'database'), { recursive: true, mode: 0o700 });
      const files: Record<string, string> = {};
      const dumped = await this.repository.dump(staging, (done, total) =>
        report({ stage: 'database', percent: Math.round((done / total) * 55) }),
      );
      for (const table of dumped.tables) files[table.file] = table.sha256;

      await report({ stage: 'nodes', percent: 60 });
      const nodes = (await this.repository.nodes()).map((node) => ({
        ...node,
        agent: { ...node.agent, unmanaged: isUnmanaged(node, this.runtime.config) },
      }));
      // Only agents on a live link are asked: one that is not connected could not answer in time.
      const now = Date.now();
      const online = nodes.filter((node) => agentState(node.agent, now) === 'connected');
      const collected = await this.hostStates.collect(
        online.map((node) => node.id),
        randomUUID(),
      );
      const manifestNodes: Manifest['nodes'] = [];
      for (const node of nodes) {
        const result = collected.get(node.id) ?? {
          state: 'unreachable' as const,
          error: AGENT_NOT_LINKED[agentState(node.agent, now)],
        };
        if (result.state === 'collected') {
          const file = `nodes/${node.id}/host-state.json`;
          await mkdir(join(staging, 'nodes', node.id), { recursive: true, mode: 0o700 });
          await writeFile(join(staging, file), JSON.stringify(result.hostState), { mode: 0o600 });
          files[file] = await sha256OfFile(join(staging, file));
          manifestNodes.push({ id: node.id, name: node.name, state: 'collected', error: null, file });
        } else {
          manifestNodes.push({ id: node.id, name: node.name, state: 'unreachable', error: result.error, file: null });
        }
      }

      await report({ stage: 'packing', percent: 80 });
      const manifest: Manifest = {
        format: BACKUP_FORMAT,
        formatVersion: BACKUP_FORMAT_VERSION,
        panelVersion: PANEL_VERSION,
        createdAt: createdAt.toISOString(),
        migration: dumped.migration,
        tables: dumped.tables.map(({ name: table, columns, rows, file }) => ({ name: table, columns, rows, file })),
        nodes: manifestNodes,
        files,
      };
      await writeFile(join(staging, MANIFEST_FILE), JSON.stringify(manifest, null, 2), { mode: 0o600 });
      await packArchive(staging, scratch, manifest);
      const backup = await this.store.commit(scratch, name, await sha256OfFile(scratch));
      if (!backup) throw new Error(`the name ${name} was taken meanwhile (an upload of the same second); try again`);

      if (trigger === 'schedule') {
        await this.store.markScheduled(name);
        await report({ stage: 'retention', percent: 95 });
        await this.applyRetention();
      }
      return backup;
    } catch (error) {
      throw noSpaceInWords(error, this.store.dir);
    } finally {
      await this.store.discardDir(staging);
      await this.store.discard(scratch);
    }
  }

  /**
   * The second this backup is named by: now, or when a backup of this second exists already, the
   * next second once it has come. Names have one-second resolution; taking the next free name
   * instead (as backups once did) named back-to-back backups up to 2 s ahead of their time, and
   * a name in the future sorts above backups made after it.
   */
  private async freeSecond(): Promise<Date> {
    for (;;) {
      const second = new Date(Math.floor(Date.now() / 1000) * 1000);
      if (!(await this.store.get(backupNameAt(second)))) return second;
      await new Promise((resolve) => setTimeout(resolve, second.getTime() + 1000 - Date.now() + 1));
    }
  }

  /**
   * Keeps the newest `backupKeep` scheduled archives (settings) and deletes the older scheduled
   * ones. Archives made by hand or uploaded are never pruned: they go when the owner deletes them.
   */
  async applyRetention(): Promise<string[]> {
    const { backupKeep } = await this.settings.get();
    const removed: string[] = [];
    const scheduled: BackupFile[] = [];
    for (const backup of await this.store.list()) if (await this.store.isScheduled(backup.name)) scheduled.push(backup);
    for (const old of scheduled.slice(backupKeep)) {
      if (await this.store.remove(old.name)) removed.push(old.name);
    }
    if (removed.length > 0) this.logger.log(`retention removed ${removed.join(', ')}`);
    return removed;
  }

  /** Checks the archive (backup-archive.ts) and, if it passes, restores it (backups.repository.ts). */
  async restore(
    name: string,
    report: ReportProgress,
  ): Promise<{ name: string; createdAt: string; nodes: number; tables: number }> {
    const path = this.store.pathOf(name)!;
    const dir = await mkdtemp(join(this.store.dir, '.restore-'));
    try {
      await report({ stage: 'checking', percent: 5 });
      const manifest = await this.verify(path, dir);
      const restored = await this.repository.restore(dir, manifest, (done, total) =>
        report({ stage: 'restoring', percent: 10 + Math.round((done / total) * 85) }),
      );
      this.logger.log(
        `restored ${name} (made ${manifest.createdAt} at ${manifest.migration}); ${restored.nodes.length} node(s) get the restored state`,
      );
      return { name, createdAt: manifest.createdAt, nodes: restored.nodes.length, tables: manifest.tables.length };
    } finally {
      await this.store.discardDir(dir);
    }
  }

  /** Unpacks and checks an archive into `dir`; throws ArchiveRefused when it cannot be restored. */
  async verify(path: string, dir: string): Promise<Manifest> {
    const { size } = await stat(path);
    const known = this.repository.migrations.map((migration) => migration.name);
    return unpackArchive(path, dir, Math.max(256 * 1024 * 1024, size * MAX_EXPANSION), known);
  }

  /**
   * Checks an upload as a restore would (verify, then the tables and rows, backups.repository.ts
   * `check`), without restoring it; throws ArchiveRefused with the restore's own refusal.
   */
  async checkUpload(path: string, dir: string): Promise<Manifest> {
    const manifest = await this.verify(path, dir);
    if ((await this.repository.check(dir, manifest)) === 'not-permitted')
      this.logger.warn(
        'an uploaded archive was kept with its rows unchecked: the database user may not create a schema to check them in (a restore checks them)',
      );
    return manifest;
  }

  /** A fresh directory inside the store for checking an upload. */
  checkDir(): Promise<string> {
    return mkdtemp(join(this.store.dir, '.check-'));
  }

  get maxUploadBytes(): number {
    return this.runtime.config.backupMaxUploadBytes;
  }
}
