import { BackupRunner, type RunProgress } from '../backups/backup-runner.js';
import { BackupStore } from '../backups/backup-store.js';
import { ArchiveRefused } from '../backups/backup-archive.js';
import { BackupsRepository } from '../backups/backups.repository.js';
import { HostStateCollector } from '../backups/host-state-collector.js';
import type { WarrenConfig } from '../config/config.js';
import { openQueueBackend } from '../queue/queue-backend.js';
import { CREDENTIALS_CHANNEL } from '../revisions/revisions.js';
import { SettingsRepository } from '../settings/settings.repository.js';
import { SettingsService } from '../settings/settings.service.js';
import { openPanelDatabase, type PanelDatabase } from './panel-database.js';
import { CommandFailed } from './usage.js';

/** Progress on stderr: one line rewritten in place on a terminal, a line per step otherwise. */
function progressPrinter(what: string): { report: (progress: RunProgress) => Promise<void>; done: () => void } {
  let last = '';
  const tty = process.stderr.isTTY;
  return {
    report: async ({ stage, percent }) => {
      const line = `${what}: ${stage} ${percent}%`;
      if (line === last) return;
      last = line;
      process.stderr.write(tty ? `\r${line}\u001b[K` : `${line}\n`);
    },
    done: () => {
      if (tty && last) process.stderr.write('\n');
    },
  };
}

/**
 * The same work the panel's backup jobs do (backups/backup-runner.ts), run by this process, under
 * the same database lock: with or without a panel running, never beside a backup or restore it runs.
 */
async function withRunner<T>(
  config: WarrenConfig,
  work: (runner: BackupRunner, repository: BackupsRepository, database: PanelDatabase) => Promise<T>,
  options: { migrate: boolean },
): Promise<T> {
  const database = await openPanelDatabase(config, (message) => console.error(`warren: ${message}`), options);
  const queues = await openQueueBackend({
    redisUrl: config.redisUrl,
    databaseUrl: database.url,
    prefix: config.queuePrefix,
  });
  try {
    const repository = new BackupsRepository({ databaseUrl: database.url }, database.orm);
    const runner = new BackupRunner(
      new BackupStore(config.backupDir),
      repository,
      new HostStateCollector(queues),
      new SettingsService(new SettingsRepository(database.orm)),
      { config },
    );
    return await work(runner, repository, database);
  } finally {
    await queues.close();
    await database.close();
  }
}

/**
 * How many panels run on this database now: each holds one connection whose last statement is
 * its revision listener's `listen` on CREDENTIALS_CHANNEL (revisions/revision-listener.ts).
 */
async function runningPanels(database: PanelDatabase): Promise<number> {
  const [row] = await database.orm.em.getConnection().execute<{ panels: number }[]>(
    `select count(*)::int as panels from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid() and query = ?`,
    [`listen ${CREDENTIALS_CHANNEL}`],
  );
  return row?.panels ?? 0;
}

async function locked<T>(repository: BackupsRepository, work: () => Promise<T>): Promise<T> {
  const outcome = await repository.withRunLock(work);
  if (!outcome.ran) throw new CommandFailed('another backup or restore is running; try again when it has finished');
  return outcome.result;
}

/** `warren backup create [--json]`: makes a backup now and prints where it is. */
export async function backupCreate(config: WarrenConfig, options: { json: boolean }): Promise<void> {
  const progress = progressPrinter('backup');
  const backup = await withRunner(
    config,
    (runner, repository) => locked(repository, () => runner.backup(progress.report)),
    { migrate: false },
  );
  progress.done();
  if (options.json) process.stdout.write(`${JSON.stringify(backup, null, 2)}\n`);
  else
    process.stdout.write(
      `${backup.name}  ${backup.size} bytes  sha256 ${backup.sha256}\n${config.backupDir}/${backup.name}\n`,
    );
}

/** `warren backup list [--json]`: the archives in the backup directory, newest first. */
export async function backupList(config: WarrenConfig, options: { json: boolean }): Promise<void> {
  const backups = await new BackupStore(config.backupDir).list();
  if (options.json) {
    process.stdout.write(`${JSON.stringify(backups, null, 2)}\n`);
    return;
  }
  if (backups.length === 0) {
    process.stdout.write(`No backups in ${config.backupDir}. Make one with: warren backup create\n`);
    return;
  }
  for (const backup of backups)
    process.stdout.write(`${backup.name}  ${backup.size} bytes  ${backup.createdAt.toISOString()}\n`);
}

/** `warren backup restore NAME`: checks the archive, restores it in one transaction; running panels send every node the restored state. */
export async function backupRestore(config: WarrenConfig, name: string, options: { json: boolean }): Promise<void> {
  const store = new BackupStore(config.backupDir);
  if (!store.pathOf(name))
    throw new CommandFailed(
      `"${name}" is not a backup name (backup-YYYYMMDD-HHMMSS.tar.gz); warren backup list shows them`,
    );
  if (!(await store.get(name))) throw new CommandFailed(`no backup named ${name} in ${config.backupDir}`);
  const progress = progressPrinter('restore');
  try {
    // A fresh database is a normal place to restore into (disaster recovery): restore migrates.
    const restored = await withRunner(
      config,
      async (runner, repository, database) => ({
        ...(await locked(repository, () => runner.restore(name, progress.report))),
        panelRunning: (await runningPanels(database)) > 0,
      }),
      { migrate: true },
    );
    progress.done();
    if (options.json) process.stdout.write(`${JSON.stringify(restored, null, 2)}\n`);
    else
      process.stdout.write(
        `restored ${restored.name} (made ${restored.createdAt}): ${restored.tables} tables; ` +
          (restored.panelRunning
            ? `${restored.nodes} node(s) get the restored state from the running panel\n`
            : `no panel is running on this database: ${restored.nodes} node(s) get the restored state when it starts\n`),
      );
  } catch (error) {
    progress.done();
    if (error instanceof ArchiveRefused) throw new CommandFailed(`${name} was not restored: ${error.message}`);
    throw error;
  }
}
