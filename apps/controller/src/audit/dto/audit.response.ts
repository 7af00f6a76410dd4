import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { AUDIT_OUTCOMES, AUDIT_VIA, type AuditOutcome, type AuditVia } from '#libs/contracts/audit.js';
import { DateTimeField, IntField } from '../../http/api-fields.js';

/** Any JSON value: a field's value is whatever its route takes. */
const ANY_JSON = {
  anyOf: [
    { type: 'string' },
    { type: 'number' },
    { type: 'boolean' },
    { type: 'object' },
    { type: 'array', items: {} },
    { type: 'null' },
  ],
};

export class AuditChangeDto {
  @ApiProperty()
  field!: string;

  @ApiPropertyOptional({ ...ANY_JSON, description: 'The value before; absent when not known (a create)' })
  old?: unknown;

  @ApiPropertyOptional({ ...ANY_JSON, description: 'The value after; absent when the field was removed (a delete)' })
  new?: unknown;

  @ApiPropertyOptional({
    type: Boolean,
    enum: [true],
    description: 'A secret (password, key, token, code): it changed; neither value is kept',
  })
  secret?: true;
}

export class AuditActorDto {
  @ApiProperty({ type: String, format: 'uuid', nullable: true })
  id!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: "The user's name; a sign-in's given name; the host account for the CLI",
  })
  name!: string | null;

  @ApiProperty({ type: String, nullable: true })
  role!: string | null;

  @ApiProperty({ enum: AUDIT_VIA })
  via!: AuditVia;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'The session or API token id' })
  credentialId!: string | null;

  @ApiProperty({ type: String, nullable: true, description: "The API token's name" })
  credentialName!: string | null;
}

export class AuditTargetDto {
  @ApiProperty({ type: String, nullable: true })
  type!: string | null;

  @ApiProperty({ type: String, nullable: true })
  id!: string | null;

  @ApiProperty({ type: String, nullable: true })
  name!: string | null;
}

export class AuditEntryDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @DateTimeField({ description: 'When the request began' })
  at!: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When it was answered' })
  finishedAt!: string | null;

  @ApiProperty({ type: AuditActorDto })
  actor!: AuditActorDto;

  @ApiProperty({ description: 'e.g. clients.create' })
  action!: string;

  @ApiProperty()
  method!: string;

  @ApiProperty({ description: 'The route pattern, or the CLI command' })
  route!: string;

  @ApiProperty({ type: AuditTargetDto })
  target!: AuditTargetDto;

  @ApiProperty({ type: [AuditChangeDto] })
  changes!: AuditChangeDto[];

  @ApiProperty({ enum: AUDIT_OUTCOMES })
  outcome!: AuditOutcome;

  @IntField({ nullable: true, description: 'The HTTP status answered (the CLI: 0 done, 1 failed)' })
  status!: number | null;

  @ApiProperty({ type: String, nullable: true, description: 'What a refusal or failure told the caller' })
  error!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'tooLarge',
    description:
      "The refusal's stable code: the first failing field's code as the answer gave it (errors[0].code), else one by status (invalid, unauthenticated, forbidden, notFound, conflict, bodyTooLarge, mediaType, throttled, internal, unavailable, diskFull; commandRefused for the CLI); null on success and on entries older than the column",
  })
  errorCode!: string | null;

  @ApiProperty({ type: String, nullable: true })
  address!: string | null;

  @ApiProperty({ type: String, nullable: true })
  userAgent!: string | null;

  @ApiProperty({ type: String, nullable: true })
  requestId!: string | null;
}

export class AuditPageDto {
  @ApiProperty({ type: [AuditEntryDto] })
  items!: AuditEntryDto[];

  @IntField({ minimum: 1 })
  perPage!: number;

  @ApiPropertyOptional({
    description: 'Pass as ?cursor= (with the same filters) for the next page; absent on the last',
  })
  nextCursor?: string;
}
