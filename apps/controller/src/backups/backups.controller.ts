import { Controller, HttpStatus, Param, Req, Res, StreamableFile } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MANAGERS, OWNER_ONLY } from '#libs/contracts/user-roles.js';
import { UPLOAD_MEDIA_TYPES } from '../http/raw-upload.js';
import { Route } from '../http/route.decorator.js';
import { BackupDeletedDto, BackupDto, BackupJobDto, BackupListDto, RestoredDto } from './dto/backup.response.js';
import { BackupsService, type RunAnswer } from './backups.service.js';

/** 201/200 with the result when the run finished within the request, else 202 with the job to follow. */
function answer<T>(reply: FastifyReply, outcome: RunAnswer<T>, doneStatus: number): T | unknown {
  if (outcome.done) {
    reply.status(doneStatus);
    return outcome.result;
  }
  reply.status(HttpStatus.ACCEPTED);
  return outcome.job;
}

/**
 * Backups (docs/backups.md). An archive holds every secret of the panel (keys, password and token
 * hashes), so reading, uploading, deleting and restoring one is the owner's; admins may make and
 * list them.
 */
@Controller()
export class BackupsController {
  constructor(private readonly backups: BackupsService) {}

  @Route({
    method: 'GET',
    path: 'backups',
    group: 'backups',
    roles: MANAGERS,
    summary: 'List backups (newest first) and the backup or restore running now, with its progress',
    response: BackupListDto,
  })
  list() {
    return this.backups.list();
  }

  @Route({
    method: 'POST',
    path: 'backups',
    group: 'backups',
    roles: MANAGERS,
    summary:
      'Make a backup now: 201 with it when done within the request, else 202 with the job to follow; one backup or restore at a time',
    status: 201,
    response: BackupDto,
    accepted: BackupJobDto,
    errors: [409, 507],
  })
  async create(@Res({ passthrough: true }) reply: FastifyReply) {
    return answer(reply, await this.backups.create(), HttpStatus.CREATED);
  }

  @Route({
    method: 'GET',
    path: 'backups/jobs/:job',
    group: 'backups',
    roles: MANAGERS,
    summary: 'A backup or restore job (its number): state, progress, result or error',
    response: BackupJobDto,
  })
  job(@Param('job') id: string) {
    return this.backups.job(id);
  }

  @Route({
    method: 'POST',
    path: 'backups/upload',
    group: 'backups',
    roles: OWNER_ONLY,
    summary:
      'Upload a backup archive (application/gzip, streamed, size-limited); it is checked like a restore before it is kept',
    status: 201,
    response: BackupDto,
    uploads: UPLOAD_MEDIA_TYPES,
    errors: [408, 409, 503],
  })
  upload(@Req() request: FastifyRequest) {
    return this.backups.upload(request.body);
  }

  @Route({
    method: 'GET',
    path: 'backups/:name',
    group: 'backups',
    roles: OWNER_ONLY,
    summary: 'Download a backup archive',
    response: BackupDto,
    files: ['application/gzip'],
  })
  async download(@Param('name') name: string) {
    const { backup, stream } = await this.backups.open(name);
    return new StreamableFile(stream, {
      type: 'application/gzip',
      disposition: `attachment; filename="${backup.name}"`,
      length: backup.size,
    });
  }

  @Route({
    method: 'DELETE',
    path: 'backups/:name',
    group: 'backups',
    roles: OWNER_ONLY,
    summary: 'Delete a backup archive',
    response: BackupDeletedDto,
    errors: [409],
  })
  remove(@Param('name') name: string) {
    return this.backups.remove(name);
  }

  @Route({
    method: 'POST',
    path: 'backups/:name/restore',
    group: 'backups',
    roles: OWNER_ONLY,
    summary:
      'Restore a backup: checks the archive first (a damaged or foreign one changes nothing), replaces every table in one transaction, then sends every node its restored state',
    response: RestoredDto,
    accepted: BackupJobDto,
    errors: [409, 503],
  })
  async restore(@Param('name') name: string, @Res({ passthrough: true }) reply: FastifyReply) {
    return answer(reply, await this.backups.restore(name), HttpStatus.OK);
  }
}
