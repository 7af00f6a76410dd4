import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { DateTimeField, IdField, IntField } from '../../http/api-fields.js';
import { FieldErrorDto } from '../../http/api-error.dto.js';
import { IMPORT_FORMATS } from './client-transfer.dto.js';

export class ExportedAccountDto {
  @ApiProperty({ description: "The interface's name" })
  interface!: string;

  @IdField()
  interfaceId!: string;

  @ApiProperty()
  ip!: string;

  @ApiProperty()
  publicKey!: string;

  @ApiPropertyOptional({ description: "Only in the owner's session" })
  privateKey?: string;

  @ApiPropertyOptional({ description: "Only in the owner's session" })
  presharedKey?: string;
}

export class ExportedDeviceDto {
  @ApiProperty()
  name!: string;

  @ApiProperty({ type: [ExportedAccountDto] })
  accounts!: ExportedAccountDto[];
}

export class ExportedClientDto {
  @ApiProperty() name!: string;
  @ApiProperty() note!: string;
  @ApiProperty({ type: [String] }) groups!: string[];
  @ApiProperty({ type: Number, nullable: true }) telegramId!: number | null;
  @IntField({ minimum: 0 }) quotaBytes!: number;
  @IntField({ minimum: 0 }) usedBytes!: number;
  @DateTimeField({ nullable: true }) expiresAt!: string | null;
  @IntField({ minimum: 0 }) deviceLimit!: number;
  @IntField({ minimum: 0 }) rateBitsPerSec!: number;
  @ApiProperty() resetCycle!: string;
  @ApiProperty() status!: string;
  @ApiProperty() enabled!: boolean;
  @ApiProperty() subId!: string;
  @DateTimeField() createdAt!: string;
  @ApiProperty({ type: [ExportedDeviceDto] }) devices!: ExportedDeviceDto[];
}

/** Warren's client export: imports back through POST /api/clients/import. */
export class ClientExportDto {
  @ApiProperty({ enum: ['warren-clients'] }) format!: 'warren-clients';
  @ApiProperty({ enum: [1] }) version!: 1;
  @DateTimeField() exportedAt!: string;
  @ApiProperty({ description: "Whether private and preshared keys are included (the owner's session only)" })
  withKeys!: boolean;
  @ApiProperty({ type: [ExportedClientDto] }) clients!: ExportedClientDto[];
}

export class ImportSummaryDto {
  @IntField({ minimum: 0 }) rows!: number;
  @IntField({ minimum: 0 }) created!: number;
  @IntField({ minimum: 0 }) updated!: number;
  @IntField({ minimum: 0 }) refused!: number;
}

export class ImportRowDto {
  @IntField({ minimum: 1, description: "The row's place in the file, from 1" }) row!: number;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: ['create', 'update', 'refuse'] }) action!: 'create' | 'update' | 'refuse';
  @IntField({ minimum: 0 }) devices!: number;
  @ApiProperty({ type: [String], description: 'The addresses the file gives its devices (kept)' }) addresses!: string[];
  @ApiProperty({ type: [FieldErrorDto], description: 'Why the row is refused: each field as the file names it' })
  errors!: FieldErrorDto[];
}

export class ImportResultDto {
  @ApiProperty({ enum: IMPORT_FORMATS }) format!: string;
  @ApiProperty() dryRun!: boolean;
  @ApiProperty({ description: 'true when the rows were written' }) applied!: boolean;
  @IdField() interfaceId!: string;
  @ApiProperty({ type: ImportSummaryDto }) summary!: ImportSummaryDto;
  @ApiProperty({ type: [ImportRowDto] }) rows!: ImportRowDto[];
  @ApiProperty({ type: [String] }) warnings!: string[];
}
