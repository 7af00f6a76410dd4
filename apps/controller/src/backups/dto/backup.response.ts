import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { DateTimeField, IntField } from '../../http/api-fields.js';

export class BackupDto {
  @ApiProperty({ example: 'backup-20261125-101500.tar.gz', description: 'backup-YYYYMMDD-HHMMSS.tar.gz (UTC)' })
  name!: string;

  @IntField({ description: 'Bytes' })
  size!: number;

  @DateTimeField()
  createdAt!: string;

  @ApiProperty({ description: 'SHA-256 of the archive, hex' })
  sha256!: string;
}

export class RunProgressDto {
  @ApiProperty({ enum: ['database', 'nodes', 'packing', 'checking', 'restoring', 'retention', 'done'] })
  stage!: string;

  @IntField({ minimum: 0, maximum: 100 })
  percent!: number;
}

export class BackupJobDto {
  @ApiProperty({ description: 'Follow it with GET /api/backups/jobs/{id}' })
  id!: string;

  @ApiProperty({ enum: ['backup', 'restore'] })
  kind!: string;

  @ApiProperty({ enum: ['waiting', 'active', 'completed', 'failed'] })
  state!: string;

  @ApiProperty({ type: RunProgressDto, nullable: true })
  progress!: RunProgressDto | null;

  @ApiProperty({ type: String, nullable: true, description: 'The archive restored, or the backup made once done' })
  name!: string | null;

  @ApiProperty({ enum: ['api', 'schedule'] })
  trigger!: string;

  @DateTimeField({ nullable: true })
  startedAt!: string | null;

  @DateTimeField({ nullable: true })
  finishedAt!: string | null;

  @ApiPropertyOptional({
    description: 'What the run produced, once completed (the backup, or the restore summary)',
    nullable: true,
    type: 'object',
    additionalProperties: true,
  })
  result!: unknown;

  @ApiProperty({ type: String, nullable: true })
  error!: string | null;
}

export class BackupListDto {
  @ApiProperty({ type: [BackupDto], description: 'Newest first' })
  backups!: BackupDto[];

  @ApiProperty({
    type: BackupJobDto,
    nullable: true,
    description: 'The backup or restore waiting or running now, with its progress',
  })
  running!: BackupJobDto | null;
}

export class RestoredDto {
  @ApiProperty()
  name!: string;

  @DateTimeField({ description: 'When the restored backup was made' })
  createdAt!: string;

  @IntField({ description: 'Nodes that now get the restored desired state' })
  nodes!: number;

  @IntField()
  tables!: number;
}

export class BackupDeletedDto {
  @ApiProperty()
  name!: string;

  @ApiProperty({ type: Boolean, enum: [true] })
  deleted!: true;
}
