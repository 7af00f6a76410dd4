import { createWriteStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { Injectable } from '@nestjs/common';
import { ApiError, badRequest, conflict, notFound } from '../http/api-error.js';
import { uploadRefused } from '../http/raw-upload.js';
import { ArchiveRefused } from './backup-archive.js';
import { BackupJobs, type RunKind, type RunView } from './backup-jobs.js';
import { BackupRunner } from './backup-runner.js';
import { BACKUP_NAME_RULE, backupNameAt, openNoFollow, sha256OfFile, type BackupFile } from './backup-store.js';

/** How long POST /api/backups and a restore wait for their job before answering 202 with it. */
export const REQUEST_WAIT_MS = 25_000;

/** When to try a restore again that found the panel too busy to take its locks. */
const BUSY_RETRY_AFTER_S = 5;

/**
 * An upload whose body stops arriving for this long is cut off (408): one upload is received at a
 * time (upload()), and a client that sent part of a body and went silent would otherwise hold
 * every other upload at 409 until its TCP connection died.
 */
const UPLOAD_IDLE_MS = 60_000;

export type RunAnswer<T> = { done: true; result: T } | { done: false; job: RunView };

/** Backups: what may be made, read, uploaded, deleted and restored, and when. */
@Injectable()
export class BackupsService {
  /**
   * Whether an upload is being received or checked in this process. One at a time: a check
   * loads the whole archive into a schema of its own and replays migrations over it (a database
   * connection and up to 64× the archive's size on disk each), and nothing bounded how many ran.
   * A second is refused with 409, not queued, as backups and restores are (BackupJobs.start
   * answers 409 while one waits or runs): a queued upload would hold its request, its body and
   * its scratch file open for as long as the check before it takes, and the owner can send it
   * again. Across controllers the database bounds the rest (each check one connection).
   */
  private uploading = false;

  constructor(
    private readonly runner: BackupRunner,
    private readonly jobs: BackupJobs,
  ) {}

  private get store() {
    return this.runner.store;
  }

  async list(): Promise<{ backups: BackupFile[]; running: RunView | null }> {
    const [backups, running] = await Promise.all([this.store.list(), this.jobs.current()]);
    return { backups, running };
  }

  /** The backup, or 400 for a name that is not a backup name and 404 for one that does not exist. */
  async get(name: string): Promise<BackupFile> {
    if (!this.store.pathOf(name)) throw badRequest(`not a backup name (${BACKUP_NAME_RULE})`, 'name');
    const backup = await this.store.get(name);
    if (!backup) throw notFound('backup not found', 'name');
    return backup;
  }

  async open(name: string): Promise<{ backup: BackupFile; stream: Readable }> {
    const backup = await this.get(name);
    return { backup, stream: await openNoFollow(this.store.pathOf(name)!) };
  }

  async remove(name: string): Promise<{ name: string; deleted: true }> {
    await this.get(name);
    const running = await this.jobs.current();
    if (running?.kind === 'restore' && running.name === name) throw conflict('this backup is being restored', 'name');
    if (!(await this.store.remove(name))) throw notFound('backup not found', 'name');
    return { name, deleted: true };
  }

  create(trigger: 'api' | 'schedule' = 'api'): Promise<RunAnswer<BackupFile>> {
    return this.run('backup', { trigger });
  }

  async restore(name: string): Promise<RunAnswer<unknown>> {
    await this.get(name);
    return this.run('restore', { name, trigger: 'api' });
  }

  async job(id: string): Promise<RunView> {
    const job = await this.jobs.find(id);
    if (!job) throw notFound('backup job not found', 'job');
    return job;
  }

  /**
   * Takes an archive from the request stream: written to a scratch file as it arrives (never
   * held in memory), cut off past the size limit, then checked exactly as a restore checks it
   * (manifest, format version, checksums, then its tables and rows loaded beside the panel's and
   * held to what the API takes): an archive a restore would refuse is refused here. It is kept under the name its manifest's time gives;
   * the same archive uploaded twice is the same backup, a different one under a taken name is 409.
   */
  async upload(body: unknown): Promise<BackupFile> {
    if (!body || typeof (body as Readable).pipe !== 'function') throw uploadRefused();
    if (this.uploading)
      throw conflict('another upload is being received or checked; send this one again when it is done', 'archive');
    this.uploading = true;
    try {
      return await this.receiveAndCheck(body as Readable);
    } finally {
      this.uploading = false;
    }
  }

  private async receiveAndCheck(body: Readable): Promise<BackupFile> {
    const limit = this.runner.maxUploadBytes;
    const scratch = await this.store.scratch('upload');
    const dir = await this.runner.checkDir();
    try {
      let received = 0;
      const stalled = () =>
        body.destroy(
          new ApiError(408, `the upload stalled: nothing arrived for ${UPLOAD_IDLE_MS / 1000} s`, 'archive'),
        );
      const idle = setTimeout(stalled, UPLOAD_IDLE_MS);
      const limiter = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          idle.refresh();
          received += chunk.length;
          if (received > limit)
            done(new ApiError(413, `the archive is larger than the upload limit (${limit} bytes)`, 'archive'));
          else done(null, chunk);
        },
      });
      try {
        await pipeline(body, limiter, createWriteStream(scratch, { mode: 0o600 }));
      } finally {
        clearTimeout(idle);
      }
      if (received === 0) throw badRequest('the upload is empty', 'archive');
      let createdAt: string;
      try {
        createdAt = (await this.runner.checkUpload(scratch, dir)).createdAt;
      } catch (error) {
        if (error instanceof ArchiveRefused) throw new ApiError(error.status, error.message, 'archive');
        throw error;
      }
      // An archive "made" in the future would stay the newest for ever: retention would delete
      // every real backup and the schedule would never find one due.
      if (new Date(createdAt).getTime() > Date.now() + 86_400_000)
        throw badRequest(`the archive says it was made in the future (${createdAt})`, 'archive');
      const name = backupNameAt(new Date(createdAt));
      const sha256 = await sha256OfFile(scratch);
      const existing = await this.store.get(name);
      if (existing) {
        if (existing.sha256 === sha256) return existing;
        throw conflict(`a different backup named ${name} already exists; delete it first`, 'archive');
      }
      const kept = await this.store.commit(scratch, name, sha256);
      if (!kept) throw conflict(`a backup named ${name} was stored meanwhile; upload again to compare`, 'archive');
      return kept;
    } finally {
      await this.store.discard(scratch);
      await this.store.discardDir(dir);
    }
  }

  private async run<T>(kind: RunKind, data: { name?: string; trigger: 'api' | 'schedule' }): Promise<RunAnswer<T>> {
    const id = await this.jobs.start(kind, data);
    const outcome = await this.jobs.wait(id, REQUEST_WAIT_MS);
    if (outcome.state === 'completed') return { done: true, result: outcome.value as T };
    if (outcome.state === 'failed') {
      const refusal = BackupJobs.refusal(outcome.reason);
      if (refusal?.[0] === 503) throw new ApiError(503, refusal[1], '', { 'Retry-After': String(BUSY_RETRY_AFTER_S) });
      if (refusal) throw new ApiError(refusal[0], refusal[1], kind === 'restore' ? 'name' : '');
      throw new Error(`${kind} failed: ${outcome.reason}`);
    }
    return { done: false, job: await this.job(id) };
  }
}
